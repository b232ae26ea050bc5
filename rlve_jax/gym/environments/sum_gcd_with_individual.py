"""SumGCDWithIndividual: the sum of gcd(i, N) for i = 1..N."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


class SumGCDWithIndividual(Environment):
    name = "SumGCDWithIndividual"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(32, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(4, params["MAX_N"])
        return {"N": n, "reference": str(sum(math.gcd(i, n) for i in range(1, n + 1)))}

    def prompt(self, data):
        return (
            f"Compute the sum of gcd(i, {data['N']}) over all integers 1 <= i <= {data['N']}, where gcd is the "
            "greatest common divisor.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)
