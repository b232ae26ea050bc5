"""MaxXorSet (held-out): a subset of the numbers whose XOR is as large as possible (linear basis)."""

from rlve_jax.gym.environments._common import INVALID, distinct_in_range, grow_1p1, maximization_reward, parse_ints
from rlve_jax.gym.env import Environment


def max_xor_subset(values: list[int]) -> tuple[int, list[int]]:
    """Gaussian elimination over GF(2), tracking which original indices make up each basis vector."""
    basis: dict[int, tuple[int, int]] = {}  # leading bit -> (vector, index mask)
    for index, value in enumerate(values):
        vector, mask = value, 1 << index
        for bit in sorted(basis, reverse=True):
            if vector >> bit & 1:
                vector ^= basis[bit][0]
                mask ^= basis[bit][1]
        if vector:
            basis[vector.bit_length() - 1] = (vector, mask)
    best, mask = 0, 0
    for bit in sorted(basis, reverse=True):
        if not best >> bit & 1:
            best ^= basis[bit][0]
            mask ^= basis[bit][1]
    return best, [i for i in range(len(values)) if mask >> i & 1]


class MaxXorSet(Environment):
    name = "MaxXorSet"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        bits = next(b for b in range(1, 64) if 2 ** b - 2 >= 2 * n)
        return [{"N": n, "bits": b} for b in range(bits, bits + 5)]

    def sample(self, params, rng):
        values = [rng.randint(1, 2 ** params["bits"] - 2) for _ in range(params["N"])]
        best, chosen = max_xor_subset(values)
        return {"values": values, "optimum": best, "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        values = data["values"]
        listing = " ".join(f"A[{i}]={v}" for i, v in enumerate(values))
        return (
            f"You are given {len(values)} numbers: {listing}\n"
            "Choose a set of distinct indices so that the bitwise XOR of the chosen numbers is as large as "
            "possible.\n\n"
            "Output Format: a single line with the chosen indices (0-based) separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        values = data["values"]
        if not distinct_in_range(chosen, 0, len(values) - 1):
            return INVALID
        xor = 0
        for i in chosen:
            xor ^= values[i]
        return maximization_reward(xor, data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return answer + f" {len(problem.data['values'])}"  # an index out of range
