"""MinNoSolutionLinearDiophantineEquation: the largest z not of the form A*x + B*y with x, y >= 0."""

import math

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


class MinNoSolutionLinearDiophantineEquation(ExactIntegerEnvironment):
    name = "MinNoSolutionLinearDiophantineEquation"

    def levels(self, difficulty):
        return [{"MAX_A_B": 16 * 2**difficulty}]

    def sample(self, params, rng):
        while True:
            a, b = rng.randint(2, params["MAX_A_B"]), rng.randint(2, params["MAX_A_B"])
            if math.gcd(a, b) == 1:
                return {"A": a, "B": b, "reference": str(a * b - a - b)}  # the Frobenius number

    def prompt(self, data):
        return (
            f"Consider the equation {data['A']}*x + {data['B']}*y = z, where x and y must be non-negative integers. "
            f"Since gcd({data['A']}, {data['B']}) = 1, every large enough z can be written this way. "
            "What is the largest non-negative integer z that cannot be written in this form?\n\n"
            "Output Format: a single integer."
        )
