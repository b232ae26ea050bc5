"""SumProductDivisorNum (held-out): the sum of d(i * j) over a grid of i and j."""

from rlve_jax.gym.environments._common import grow_1p5, perturb_count, score_count
from rlve_jax.gym.environments._numbers import divisor_counts
from rlve_jax.gym.env import Environment


class SumProductDivisorNum(Environment):
    name = "SumProductDivisorNum"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        d = divisor_counts(n * m)
        total = sum(d[i * j] for i in range(1, n + 1) for j in range(1, m + 1))
        return {"N": n, "M": m, "reference": str(total)}

    def prompt(self, data):
        return (
            "Let d(x) be the number of positive divisors of x. Compute the sum of d(i * j) over all integers "
            f"1 <= i <= {data['N']} and 1 <= j <= {data['M']}.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
