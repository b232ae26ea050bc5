"""NoAdjacentGirlCounting: line up N boys, M girls and 2 teachers with no two girls and no two teachers adjacent."""

from math import factorial, perm

from rlve_jax.gym.environments._common import CountingEnvironment, grow_1p1


def line_ups(boys: int, girls: int) -> int:
    """Teachers apart among the boys, then girls in distinct gaps; plus the case where exactly one girl
    separates the two teachers (that block acts as one more boy)."""
    apart = factorial(boys) * perm(boys + 1, 2) * perm(boys + 3, girls)
    girl_between = factorial(boys + 1) * 2 * girls * perm(boys + 2, girls - 1)
    return apart + girl_between


class NoAdjacentGirlCounting(CountingEnvironment):
    name = "NoAdjacentGirlCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(1, params["MAX_N_M"]), rng.randint(1, params["MAX_N_M"])
        return {"N": n, "M": m, "gold": line_ups(n, m)}

    def prompt(self, data):
        return (
            f"There are {data['N']} boys, {data['M']} girls and 2 teachers; all of them are distinct people. "
            f"In how many ways can they all stand in a single line so that no two girls stand next to each other "
            f"and the two teachers do not stand next to each other?\n\n"
            "Output Format: a single integer, the number of arrangements."
        )
