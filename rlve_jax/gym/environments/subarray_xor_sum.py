"""SubarrayXorSum: the sum of the XORs of all contiguous subarrays."""

from functools import reduce
from operator import xor

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


class SubarrayXorSum(ExactIntegerEnvironment):
    name = "SubarrayXorSum"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, n) for _ in range(n)]
        total = sum(reduce(xor, values[l:r], 0) for l in range(n) for r in range(l + 1, n + 1))
        return {"A": values, "reference": str(total)}

    def prompt(self, data):
        return (
            f"You are given an array A of {len(data['A'])} integers: {' '.join(map(str, data['A']))}\n"
            "Compute the bitwise XOR of every non-empty contiguous subarray A[l..r], then add all these XOR "
            "values together. What is the total?\n\n"
            "Output Format: a single integer."
        )
