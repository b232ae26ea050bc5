"""SumPHIInterval: the sum of x - phi(x) (numbers up to x sharing a factor with x) over [L, R]."""

from rlve_jax.gym.environments._numbers import euler_phi
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


class SumPHIInterval(Environment):
    name = "SumPHIInterval"

    def levels(self, difficulty):
        return [{"MAX_DELTA": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        delta = params["MAX_DELTA"]
        left = rng.randint(1, delta * delta)
        right = left + rng.randint(1, delta)
        return {"L": left, "R": right, "reference": str(sum(x - euler_phi(x) for x in range(left, right + 1)))}

    def prompt(self, data):
        return (
            "For a positive integer x, let g(x) be the number of integers y with 1 <= y <= x and gcd(x, y) > 1 "
            "(that is, x minus Euler's totient of x). "
            f"Compute the sum of g(x) over all integers x with {data['L']} <= x <= {data['R']}.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
