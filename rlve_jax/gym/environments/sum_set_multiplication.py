"""SumSetMultiplication: sum of a_1 * ... * a_N over ordered tuples of distinct integers from [1, K]."""

from math import factorial

from rlve_jax.gym.environments._common import PRIME_MODULI, ModCountingEnvironment, grow_1p5


def ordered_distinct_product_sum(n: int, k: int) -> int:
    """N! times the elementary symmetric polynomial e_N(1, ..., K), built one integer at a time."""
    elementary = [1] + [0] * n
    for value in range(1, k + 1):
        for size in range(n, 0, -1):
            elementary[size] += elementary[size - 1] * value
    return factorial(n) * elementary[n]


class SumSetMultiplication(ModCountingEnvironment):
    name = "SumSetMultiplication"

    def levels(self, difficulty):
        return [{"MAX_N": 3 + difficulty, "MAX_K": grow_1p5(8, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        k = rng.randint(n + 1, params["MAX_K"])
        mod = rng.choice(PRIME_MODULI)
        return {"N": n, "K": k, "mod": mod, "gold": ordered_distinct_product_sum(n, k) % mod}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"Consider all ordered tuples (a_1, ..., a_{n}) of {n} pairwise distinct integers, each between 1 and {k}. "
            f"Compute the sum of a_1 * a_2 * ... * a_{n} over all such tuples.\n\n"
            f"Output Format: a single integer, the sum modulo {data['mod']}."
        )
