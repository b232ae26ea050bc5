"""CapitalCityEffect: sum over [L, R] of f(x) = sum of digit * (run length)^2 over maximal equal-digit runs."""

import itertools

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


def run_value(x: int) -> int:
    return sum(int(digit) * len(list(run)) ** 2 for digit, run in itertools.groupby(str(x)))


class CapitalCityEffect(Environment):
    name = "CapitalCityEffect"

    def levels(self, difficulty):
        return [{"MAX_R": grow_1p5(20, difficulty)}]

    def sample(self, params, rng):
        right = rng.randint(20, params["MAX_R"])
        left = rng.randint(1, right)
        return {"L": left, "R": right, "reference": str(sum(map(run_value, range(left, right + 1))))}

    def prompt(self, data):
        return (
            "For a positive integer x, split its decimal representation into maximal runs of equal digits; "
            "f(x) is the sum over the runs of (the run's digit) * (the run's length)^2. "
            "For example, f(1223334) = 1*1^2 + 2*2^2 + 3*3^2 + 4*1^2 = 40.\n"
            f"Compute the sum of f(x) over all integers x with {data['L']} <= x <= {data['R']}.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
