"""Sum_DivisorNum (held-out): the sum of the divisor counts d(i) for L <= i <= R."""

from rlve_jax.gym.environments._common import grow_1p5, perturb_count, score_count
from rlve_jax.gym.env import Environment


def divisor_sum_prefix(n: int) -> int:
    """sum_{i<=n} d(i) = sum_k floor(n / k)."""
    return sum(n // k for k in range(1, n + 1))


class Sum_DivisorNum(Environment):
    name = "Sum_DivisorNum"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_R": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        r = rng.randint(2, params["MAX_R"])
        left = rng.randint(1, r)
        return {"L": left, "R": r, "reference": str(divisor_sum_prefix(r) - divisor_sum_prefix(left - 1))}

    def prompt(self, data):
        return (
            f"Let d(i) be the number of positive divisors of i. Compute d({data['L']}) + d({data['L'] + 1}) + ... + "
            f"d({data['R']}), the sum of d(i) over all integers i with {data['L']} <= i <= {data['R']}.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
