"""PolynomialRemainder: the remainder of P(x) divided by Q(x) (integer by construction)."""

from rlve_jax.gym.environments._numbers import format_polynomial, multiply_polynomials
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, parse_ints, positional_match_reward


DEGREE_RATIOS = (0.1, 0.3, 0.5, 0.7, 0.9)  # remainder-degree bounds int(N * r), as in the original


def random_polynomial(rng, degree: int) -> list[int]:
    """Coefficients in [-5, 5], constant term first, with a positive leading coefficient in [1, 5]."""
    return [rng.randint(-5, 5) for _ in range(degree)] + [rng.randint(1, 5)]


class PolynomialRemainder(Environment):
    name = "PolynomialRemainder"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        degrees = sorted({2, 3, 4, 5} | {int(n * r) for r in DEGREE_RATIOS})
        return [{"N": n, "M": m} for m in degrees if 2 <= m <= n]

    def sample(self, params, rng):
        n, m = params["N"], params["M"]
        divisor = random_polynomial(rng, m)
        quotient = random_polynomial(rng, n - m)
        remainder = [rng.randint(-5, 5) for _ in range(m)]
        dividend = multiply_polynomials(divisor, quotient)
        dividend = [a + (remainder[i] if i < m else 0) for i, a in enumerate(dividend)]
        return {"P": dividend, "Q": divisor, "reference": " ".join(map(str, remainder))}

    def prompt(self, data):
        m = len(data["Q"]) - 1
        return (
            f"Divide P(x) = {format_polynomial(data['P'])} by Q(x) = {format_polynomial(data['Q'])}. "
            f"The quotient and the remainder R(x) have integer coefficients, and R has degree less than {m}. "
            f"Write R(x) = s_0 + s_1*x + ... + s_{m - 1}*x^{m - 1}.\n\n"
            f"Output Format: a single line with the {m} integers s_0, s_1, ..., s_{m - 1} (from the constant "
            "term up, zeros included) separated by spaces."
        )

    def score(self, data, answer):
        coefficients, gold = parse_ints(answer), list(map(int, data["reference"].split()))
        if len(coefficients) != len(gold):
            return -0.5
        return positional_match_reward(coefficients, gold, 10)
