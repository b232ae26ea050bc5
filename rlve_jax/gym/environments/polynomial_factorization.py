"""PolynomialFactorization: the integer roots of an expanded product of linear factors."""

from collections import Counter

from rlve_jax.gym.environments._numbers import format_polynomial, multiply_polynomials
from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import parse_ints


class PolynomialFactorization(Environment):
    name = "PolynomialFactorization"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        roots = sorted(rng.randint(-n, n) for _ in range(n))
        coefficients = [1]
        for root in roots:
            coefficients = multiply_polynomials(coefficients, [-root, 1])
        return {"coefficients": coefficients, "reference": " ".join(map(str, roots))}

    def prompt(self, data):
        n = len(data["coefficients"]) - 1
        return (
            f"The polynomial P(x) = {format_polynomial(data['coefficients'])} can be written as "
            f"(x - a_1) * (x - a_2) * ... * (x - a_{n}) with integers a_1, ..., a_{n}. Find them.\n\n"
            f"Output Format: a single line with the {n} integers a_1 ... a_{n} (in any order, repeated roots "
            "repeated) separated by spaces."
        )

    def score(self, data, answer):
        roots, gold = parse_ints(answer), list(map(int, data["reference"].split()))
        if len(roots) != len(gold):
            raise FormatError("wrong number of roots")
        overlap = sum((Counter(roots) & Counter(gold)).values())
        return (overlap / len(gold)) ** 5
