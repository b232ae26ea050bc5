"""IntegerFactorizationCounting (held-out): unordered factorizations of N into at least two distinct factors > 1."""

from functools import lru_cache

from rlve_jax.gym.environments._common import grow_1p5, perturb_count, score_count
from rlve_jax.gym.env import Environment


def count_distinct_factorizations(n: int) -> int:
    """Sets {a_1 < ... < a_k} (k >= 2, a_i > 1) with product n; the singleton {n} is excluded."""

    @lru_cache(maxsize=None)
    def sets(rest: int, smallest: int) -> int:  # sets of distinct factors >= smallest with product rest
        if rest == 1:
            return 1
        return sum(sets(rest // d, d + 1) for d in range(smallest, rest + 1) if rest % d == 0)

    return sets(n, 2) - 1


class IntegerFactorizationCounting(Environment):
    name = "IntegerFactorizationCounting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(16, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(4, params["MAX_N"])
        return {"N": n, "reference": str(count_distinct_factorizations(n))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"In how many ways can {n} be written as a product of at least two pairwise distinct integers, each "
            f"greater than 1? The order of the factors does not matter (for example, 24 = 2 * 12 = 3 * 8 = 4 * 6 = "
            "2 * 3 * 4 gives 4 ways for 24).\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10)
