"""BinaryAlternation: make a binary string alternate with the fewest swaps, listing the swaps."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_pair_lines
from rlve_jax.gym.env import Environment


def alternating_targets(bits: str) -> list[str]:
    """The alternating strings with the same numbers of 0s and 1s."""
    n = len(bits)
    return [t for t in (("01" * n)[:n], ("10" * n)[:n]) if t.count("0") == bits.count("0")]


def min_swaps(bits: str) -> int:
    """Each swap fixes one misplaced 0 and one misplaced 1."""
    return min(sum(a == "0" and b == "1" for a, b in zip(bits, t)) for t in alternating_targets(bits))


def swaps_to_alternate(bits: str) -> list[tuple[int, int]]:
    """An optimal swap list: pair the misplaced 0s with the misplaced 1s of the closest target."""
    target = min(alternating_targets(bits), key=lambda t: sum(a != b for a, b in zip(bits, t)))
    zeros = [i for i, (a, b) in enumerate(zip(bits, target)) if a == "0" and b == "1"]
    ones = [i for i, (a, b) in enumerate(zip(bits, target)) if a == "1" and b == "0"]
    return list(zip(zeros, ones))


class BinaryAlternation(Environment):
    name = "BinaryAlternation"

    def levels(self, difficulty):
        zeros = grow_1p1(2, difficulty)
        return [{"zero_count": zeros, "one_count": ones} for ones in (zeros - 1, zeros, zeros + 1)]

    def sample(self, params, rng):
        bits = list("0" * params["zero_count"] + "1" * params["one_count"])
        # Deviation: strings that already alternate are redrawn, so the empty answer never wins.
        while True:
            rng.shuffle(bits)
            if min_swaps("".join(bits)):
                return {"bits": "".join(bits)}

    def prompt(self, data):
        return (
            f"You are given a binary string of length {len(data['bits'])} (indexed from 0): {data['bits']}\n"
            "In one operation you may swap the characters at any two indices. Make the string alternating "
            "(no two adjacent characters equal) using the minimum number of swaps.\n\n"
            "Output Format: one swap per line, written as two indices `i j` separated by a space, "
            "in the order they are performed."
        )

    def score(self, data, answer):
        swaps = parse_pair_lines(answer)
        bits, n = list(data["bits"]), len(data["bits"])
        for i, j in swaps:
            if not (0 <= i < n and 0 <= j < n):
                return INVALID
            bits[i], bits[j] = bits[j], bits[i]
        if any(a == b for a, b in zip(bits, bits[1:])):
            return INVALID
        return fraction_reward(min_swaps(data["bits"]), len(swaps), 5)  # no swap (already alternating) gives 1

    def reference(self, problem):
        return "\n".join(f"{i} {j}" for i, j in swaps_to_alternate(problem.data["bits"]))

    def perturb(self, problem, answer):
        return answer + "\n0 1\n0 1"  # the same string, two swaps more than the minimum
