"""SubarraySumXor: the XOR of the sums of all contiguous subarrays."""

from functools import reduce
from operator import xor

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


class SubarraySumXor(ExactIntegerEnvironment):
    name = "SubarraySumXor"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, n) for _ in range(n)]
        sums = (sum(values[l:r]) for l in range(n) for r in range(l + 1, n + 1))
        return {"A": values, "reference": str(reduce(xor, sums, 0))}

    def prompt(self, data):
        return (
            f"You are given an array A of {len(data['A'])} integers: {' '.join(map(str, data['A']))}\n"
            "Compute the sum of every non-empty contiguous subarray A[l..r], then take the bitwise XOR of all "
            "these sums. What is the result?\n\n"
            "Output Format: a single integer."
        )
