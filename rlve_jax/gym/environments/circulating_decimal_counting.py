"""CirculatingDecimalCounting (held-out): distinct fractions x/y that are purely periodic in base K."""

from math import gcd

from rlve_jax.gym.environments._common import grow_1p1, grow_1p5, perturb_count, score_count
from rlve_jax.gym.env import Environment


def count_pure_repeating(n: int, m: int, k: int) -> int:
    """A value in lowest terms x/y is purely periodic in base K iff gcd(y, K) = 1; count reduced pairs."""
    return sum(1 for y in range(1, m + 1) if gcd(y, k) == 1 for x in range(1, n + 1) if gcd(x, y) == 1)


class CirculatingDecimalCounting(Environment):
    name = "CirculatingDecimalCounting"
    perturb = perturb_count

    def levels(self, difficulty):
        max_nm = grow_1p5(5, difficulty)
        return [{"MAX_N": max_nm, "MAX_M": max_nm, "MAX_K": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(1, params["MAX_N"]), rng.randint(1, params["MAX_M"])
        k = rng.randint(2, params["MAX_K"])
        return {"N": n, "M": m, "K": k, "reference": str(count_pure_repeating(n, m, k))}

    def prompt(self, data):
        n, m, k = data["N"], data["M"], data["K"]
        return (
            f"Consider all fractions x / y with integers 1 <= x <= {n} and 1 <= y <= {m}. Written in base {k}, "
            "a number is purely repeating if its expansion after the radix point is periodic from the very first "
            "digit (integers count as purely repeating, with period 0 repeated). How many distinct values among "
            f"these fractions are purely repeating in base {k}? Equal values (such as 1/2 and 2/4) count once.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
