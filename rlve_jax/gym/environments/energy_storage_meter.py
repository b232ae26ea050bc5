"""EnergyStorageMeter: sum over 0 <= i < N, 0 <= j < M of max((i XOR j) - K, 0)."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


class EnergyStorageMeter(Environment):
    name = "EnergyStorageMeter"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(4, difficulty)}]

    def sample(self, params, rng):
        limit = params["MAX_N_M"]
        n, m, k = rng.randint(2, limit), rng.randint(2, limit), rng.randint(0, limit)
        total = sum(max((i ^ j) - k, 0) for i in range(n) for j in range(m))
        return {"N": n, "M": m, "K": k, "reference": str(total)}

    def prompt(self, data):
        return (
            f"Compute the sum of max((i XOR j) - {data['K']}, 0) over all integers i and j with "
            f"0 <= i < {data['N']} and 0 <= j < {data['M']}, where XOR is bitwise exclusive or.\n\n"
            "Output Format: a single non-negative integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
