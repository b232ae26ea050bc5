"""FaceRightWay (USACO "Face The Right Way"): pick one window length K and flip windows of that length
until the 0/1 array is all zeros, with the fewest flips M and then the smallest K."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import parse_int_rows


def forced_flips(bits: list[int], k: int) -> list[int] | None:
    """The only way to clear the array with windows of length k (each start used at most once, leftmost
    1 first), as 0-based window starts, or None if it is impossible."""
    n, parity, ends, starts = len(bits), 0, [0] * (len(bits) + 1), []
    for i in range(n):
        parity ^= ends[i]
        if bits[i] ^ parity:
            if i + k > n:
                return None
            starts.append(i)
            parity ^= 1
            ends[i + k] ^= 1
    return starts


def best_flips(bits: list[int]) -> tuple[int, list[int]]:
    """(K, starts) with the fewest flips, ties broken by the smallest K (K = 1 always works)."""
    candidates = [(len(starts), k, starts) for k in range(1, len(bits) + 1)
                  if (starts := forced_flips(bits, k)) is not None]
    _, k, starts = min(candidates, key=lambda t: t[:2])
    return k, starts


class FaceRightWay(Environment):
    name = "FaceRightWay"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        bits = [0] * n
        while not any(bits):
            k = rng.randint(2, n)
            for _ in range(rng.randint(1, n)):
                start = rng.randint(0, n - k)
                bits[start:start + k] = [1 - b for b in bits[start:start + k]]
        k, starts = best_flips(bits)
        return {"bits": bits, "K": k, "M": len(starts),
                "reference": "\n".join(f"{s + 1} {s + k}" for s in starts)}

    def prompt(self, data):
        bits = data["bits"]
        n = len(bits)
        return (
            f"You are given a 0/1 array A of length {n} (positions 1 to {n}): {' '.join(map(str, bits))}\n"
            f"First choose a window length K (1 <= K <= {n}). Then, any number of times, choose a window "
            "[l, r] with r - l + 1 = K and flip every bit in it (0 becomes 1 and 1 becomes 0). All windows "
            "must have the same length K. The goal is an array of all zeros. Minimize the number of flips M; "
            "among the choices with the minimum M, minimize K.\n\n"
            "Output Format: M lines, one per flip in any order, each with two integers `l r` (1-based, inclusive) "
            "separated by a space."
        )

    def score(self, data, answer):
        bits = data["bits"]
        n = len(bits)
        windows = parse_int_rows(answer)
        if any(len(w) != 2 for w in windows):
            raise FormatError("each flip needs l and r")
        if any(not 1 <= l <= r <= n for l, r in windows) or len({r - l for l, r in windows}) > 1:
            return -0.5
        delta = [0] * (n + 1)
        for l, r in windows:
            delta[l - 1] ^= 1
            delta[r] ^= 1
        parity, cleared = 0, True
        for b, d in zip(bits, delta):
            parity ^= d
            cleared &= b == parity
        if not cleared:
            return -0.2
        m, k = len(windows), windows[0][1] - windows[0][0] + 1
        reward = 0.5 * (data["M"] / m) ** 5
        if m == data["M"]:
            reward += 0.5 * (data["K"] / k) ** 5
        return reward
