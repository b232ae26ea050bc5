"""TransmissionDelay: distinct 0/1 arrays reachable by permutations that move every element at most D places."""

from rlve_jax.gym.environments._common import CountingEnvironment


def reachable_arrays(bits: list[int], d: int) -> int:
    """A target is reachable iff matching the k-th 1 (and the k-th 0) of source and target in order moves
    none of them more than D (in-order matching minimises the largest move per symbol). DP over
    (prefix length, ones used)."""
    ones = [i for i, b in enumerate(bits) if b]
    zeros = [i for i, b in enumerate(bits) if not b]
    ways = {0: 1}  # ones placed so far -> count
    for position in range(len(bits)):
        nxt: dict[int, int] = {}
        for used, count in ways.items():
            zeros_used = position - used
            if used < len(ones) and abs(ones[used] - position) <= d:
                nxt[used + 1] = nxt.get(used + 1, 0) + count
            if zeros_used < len(zeros) and abs(zeros[zeros_used] - position) <= d:
                nxt[used] = nxt.get(used, 0) + count
        ways = nxt
    return ways.get(len(ones), 0)


class TransmissionDelay(CountingEnvironment):
    name = "TransmissionDelay"
    positive_only = True

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        one_probability = rng.random()
        bits = [int(rng.random() < one_probability) for _ in range(n)]
        d = rng.randint(1, max(1, n // 3))
        return {"bits": bits, "D": d, "gold": reachable_arrays(bits, d)}

    def prompt(self, data):
        bits, d = data["bits"], data["D"]
        n = len(bits)
        return (
            f"A sequence of {n} bits is sent: {''.join(map(str, bits))}\n"
            f"Because of transmission delays, the bits may arrive in a different order: the received sequence is "
            f"the sent one rearranged so that every bit ends up at most {d} positions away from where it was sent "
            f"(formally, a permutation p of the positions with |p(i) - i| <= {d} for every i). "
            f"How many different bit sequences can be received?\n\n"
            "Output Format: a single integer, the number of distinct received sequences."
        )
