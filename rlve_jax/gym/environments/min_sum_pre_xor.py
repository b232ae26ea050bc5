"""MinSumPreXor: fill the blanks (-1) of an array with non-negative integers so that the sum of its
prefix XORs is minimal."""

from rlve_jax.gym.environments._common import INVALID, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def prefix_xor_sum(values: list[int]) -> int:
    total = running = 0
    for v in values:
        running ^= v
        total += running
    return total


def best_filling(values: list[int]) -> list[int]:
    """A blank at i sets the prefix XOR S_i freely; up to the next blank S_k = S_i ^ (fixed XOR since i),
    so S_i = x should minimize sum_k (x ^ P_k): bit by bit, x takes the majority bit of the P_k
    (0 on ties)."""
    filled = list(values)
    blanks = [i for i, v in enumerate(values) if v < 0] + [len(values)]
    running = 0
    for i in range(blanks[0]):
        running ^= values[i]
    for blank, next_blank in zip(blanks, blanks[1:]):
        offsets, offset = [0], 0
        for k in range(blank + 1, next_blank):
            offset ^= values[k]
            offsets.append(offset)
        target = sum(1 << bit for bit in range(max(offsets).bit_length())
                     if 2 * sum(p >> bit & 1 for p in offsets) > len(offsets))
        filled[blank] = running ^ target
        running = target ^ offsets[-1]
    return filled


class MinSumPreXor(Environment):
    name = "MinSumPreXor"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, 2 * n) for _ in range(n)]
        for i in rng.sample(range(n), rng.randint(1, n - 1)):
            values[i] = -1
        filled = best_filling(values)
        return {"A": values, "optimum": prefix_xor_sum(filled), "reference": " ".join(map(str, filled))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"You are given an array A of {n} integers: {' '.join(map(str, data['A']))}\n"
            "Replace every -1 with a non-negative integer of your choice (the other entries stay as they are). "
            "Let S[i] = A[1] XOR A[2] XOR ... XOR A[i] be the prefix XORs. Minimize S[1] + S[2] + ... + "
            f"S[{n}].\n\n"
            f"Output Format: a single line with the {n} entries of the completed array, separated by spaces."
        )

    def score(self, data, answer):
        filled = parse_ints(answer)
        given = data["A"]
        if len(filled) != len(given) or any(v < 0 or (g >= 0 and v != g) for v, g in zip(filled, given)):
            return INVALID
        return minimization_reward(data["optimum"], prefix_xor_sum(filled), beta=5)
