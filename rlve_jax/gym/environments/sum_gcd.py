"""SumGCD: the sum of gcd(i, j)^K over 1 <= i <= N, 1 <= j <= M."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


class SumGCD(Environment):
    name = "SumGCD"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m, k = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"]), rng.randint(1, 5)
        total = sum(math.gcd(i, j) ** k for i in range(1, n + 1) for j in range(1, m + 1))
        return {"N": n, "M": m, "K": k, "reference": str(total)}

    def prompt(self, data):
        return (
            f"Compute the sum of gcd(i, j)^{data['K']} over all integers 1 <= i <= {data['N']} and "
            f"1 <= j <= {data['M']}, where gcd is the greatest common divisor.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)
