"""AddMultiple_Divisible_Counting: pairs a < b <= N with a*b divisible by a+b."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


class AddMultiple_Divisible_Counting(Environment):
    name = "AddMultiple_Divisible_Counting"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(16, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(6, params["MAX_N"])
        count = sum(a * b % (a + b) == 0 for b in range(2, n + 1) for a in range(1, b))
        return {"N": n, "reference": str(count)}

    def prompt(self, data):
        return (
            f"How many pairs of integers (a, b) satisfy 1 <= a < b <= {data['N']} and a * b is divisible by a + b?\n\n"
            "Output Format: a single integer, the number of such pairs."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)
