"""StirlingSecond: surjections of N distinct balls onto R distinct boxes, i.e. R! S(N, R), modulo 1e9+7."""

from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1

MOD = 10 ** 9 + 7


def surjections(n: int, r: int) -> int:
    """Inclusion-exclusion over the boxes left empty."""
    return sum((-1) ** empty * comb(r, empty) * (r - empty) ** n for empty in range(r + 1))


class StirlingSecond(ModCountingEnvironment):
    name = "StirlingSecond"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(7, difficulty),
                 "MAX_R": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(2, params["MAX_N"])
        r = rng.randint(2, min(n, params["MAX_R"]))
        return {"N": n, "R": r, "mod": MOD, "gold": surjections(n, r) % MOD}

    def prompt(self, data):
        return (
            f"In how many ways can {data['N']} distinct balls be put into {data['R']} distinct boxes so that no box "
            f"is empty?\n\n"
            f"Output Format: a single integer, the number of ways modulo {MOD}."
        )
