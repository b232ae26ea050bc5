"""Cube_FixedLocalMaximumCounting: probability of exactly K 'cross maxima' in a random N x M x L filling.

A cell is a maximum if it beats every cell that shares a coordinate with it. Maxima have
pairwise distinct coordinates. For i cells with distinct coordinates taken in decreasing
order of value, all are maxima with probability prod_{j=1..i} 1/a_j, where
a_j = NML - (N-j)(M-j)(L-j) is the size of the union of j crosses. So the expected
number of i-sets of maxima is f(i) = prod_{j<i} (N-j)(M-j)(L-j) / prod_{j<=i} a_j, and
P(exactly K) = sum_{i>=K} (-1)^(i-K) C(i, K) f(i).
"""

from fractions import Fraction
from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format
from rlve_jax.gym.environments._numbers import fraction_mod


MOD = 998244353


def exactly_k_maxima_probability(n: int, m: int, l: int, k: int) -> Fraction:
    volume = n * m * l
    f = [Fraction(1)]  # f[i] = f(i)
    for j in range(min(n, m, l)):
        f.append(f[-1] * Fraction((n - j) * (m - j) * (l - j), volume - (n - j - 1) * (m - j - 1) * (l - j - 1)))
    return sum(((-1) ** (i - k) * comb(i, k) * f[i] for i in range(k, len(f))), Fraction(0))


class Cube_FixedLocalMaximumCounting(ModCountingEnvironment):
    name = "Cube_FixedLocalMaximumCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N_M_L": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        top = params["MAX_N_M_L"]
        n, m, l = (rng.randint(2, top) for _ in range(3))
        k = rng.randint(2, min(n, m, l))
        p = exactly_k_maxima_probability(n, m, l, k)
        return {"N": n, "M": m, "L": l, "K": k, "MOD": MOD,
                "gold": fraction_mod(p.numerator, p.denominator, MOD)}

    def prompt(self, data):
        n, m, l = data["N"], data["M"], data["L"]
        return (
            f"The integers 1 to {n * m * l} are placed in the cells of a box of size {n} x {m} x {l} (one integer "
            "per cell), with every arrangement equally likely. A cell (x, y, z) is called maximal if its "
            "number is larger than the numbers of all other cells that share at least one coordinate with "
            "it (same x, or same y, or same z).\n"
            f"What is the probability that exactly {data['K']} cells are maximal? Write the probability as "
            f"a reduced fraction P/Q and give P * Q^(-1) modulo {MOD}, where Q^(-1) is the inverse of Q "
            f"modulo the prime {MOD}.\n\n" + mod_output_format(MOD)
        )
