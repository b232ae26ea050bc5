"""PrefixSumMODDistinctPermutation: a permutation of 1..N whose prefix sums are distinct modulo N."""

from rlve_jax.gym.environments._numbers import prefix_residue_prompt, prefix_residue_score
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5


def construction(n: int) -> list[int]:
    """N, 1, N-2, 3, N-4, 5, ...: prefix sums are 0, 1, -1, 2, -2, ... modulo N (N even)."""
    return [n - k if k % 2 == 0 else k for k in range(n)]


class PrefixSumMODDistinctPermutation(Environment):
    name = "PrefixSumMODDistinctPermutation"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(8, difficulty)}]

    def sample(self, params, rng):
        while True:  # only even N (and 1) admit such a permutation
            n = rng.randint(3, params["MAX_N"])
            if n % 2 == 0:
                return {"N": n, "reference": " ".join(map(str, construction(n)))}

    def prompt(self, data):
        return prefix_residue_prompt(data["N"], "sums", "+")

    def score(self, data, answer):
        return prefix_residue_score(answer, data["N"], lambda a, b: a + b)
