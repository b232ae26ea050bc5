"""PrefixProductMODDistinctPermutation: a permutation of 1..N whose prefix products are distinct modulo N."""

from rlve_jax.gym.environments._numbers import is_prime, prefix_residue_prompt, prefix_residue_score
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5


def construction(n: int) -> list[int]:
    """For prime n: 1, then i / (i - 1) mod n for i = 2..n-1 (prefix products 1, 2, ..., n-1), then n."""
    if n == 4:
        return [1, 3, 2, 4]
    return [1] + [i * pow(i - 1, -1, n) % n for i in range(2, n)] + [n]


class PrefixProductMODDistinctPermutation(Environment):
    name = "PrefixProductMODDistinctPermutation"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(8, difficulty)}]

    def sample(self, params, rng):
        while True:  # only primes and 4 admit such a permutation
            n = rng.randint(3, params["MAX_N"])
            if n == 4 or is_prime(n):
                return {"N": n, "reference": " ".join(map(str, construction(n)))}

    def prompt(self, data):
        return prefix_residue_prompt(data["N"], "products", "*")

    def score(self, data, answer):
        return prefix_residue_score(answer, data["N"], lambda a, b: a * b)
