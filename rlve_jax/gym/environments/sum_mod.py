"""SumMOD: the sum of (N mod i) * (M mod j) over 1 <= i <= N, 1 <= j <= M with i != j."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


class SumMOD(Environment):
    name = "SumMOD"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(3, params["MAX_N_M"]), rng.randint(3, params["MAX_N_M"])
        total = sum((n % i) * (m % j) for i in range(1, n + 1) for j in range(1, m + 1) if i != j)
        return {"N": n, "M": m, "reference": str(total)}

    def prompt(self, data):
        return (
            f"Compute the sum of ({data['N']} mod i) * ({data['M']} mod j) over all pairs of integers (i, j) with "
            f"1 <= i <= {data['N']}, 1 <= j <= {data['M']} and i != j.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
