"""PolynomialInterpolation (held-out): recover integer coefficients from N + 1 point values."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_ints, positional_match_reward


class PolynomialInterpolation(Environment):
    name = "PolynomialInterpolation"

    def levels(self, difficulty):
        return [{"N": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        coefficients = [rng.randint(-5, 5) for _ in range(n)] + [rng.randint(1, 5)]
        xs = sorted(rng.sample(range(-n, n + 1), n + 1))
        points = [[x, sum(c * x ** i for i, c in enumerate(coefficients))] for x in xs]
        return {"N": n, "points": points, "reference": " ".join(map(str, coefficients))}

    def prompt(self, data):
        n = data["N"]
        points = "\n".join(f"f({x}) = {y}" for x, y in data["points"])
        return (
            f"f(x) = a_0 + a_1 x + a_2 x^2 + ... + a_{n} x^{n} is a polynomial of degree {n} with integer "
            f"coefficients. Its values at {n + 1} points are:\n{points}\n\n"
            f"Find the coefficients a_0, a_1, ..., a_{n}.\n\n"
            f"Output Format: a single line with the {n + 1} integers a_0 a_1 ... a_{n} separated by spaces."
        )

    def score(self, data, answer):
        coefficients = parse_ints(answer)
        gold = parse_ints(data["reference"])
        if len(coefficients) != len(gold):
            return INVALID
        return positional_match_reward(coefficients, gold, beta=10)
