"""SubmatrixSumDivisibleCounting (held-out): contiguous submatrices whose sum is divisible by K."""

from rlve_jax.gym.environments._common import grid_text, perturb_count, score_count
from rlve_jax.gym.env import Environment


def count_divisible(matrix: list[list[int]], k: int) -> int:
    """Fix the row band, collapse it to column sums, count equal prefix residues."""
    n, m = len(matrix), len(matrix[0])
    total = 0
    for top in range(n):
        column_sums = [0] * m
        for bottom in range(top, n):
            seen = {0: 1}
            prefix = 0
            for j in range(m):
                column_sums[j] += matrix[bottom][j]
                prefix = (prefix + column_sums[j]) % k
                total += seen.get(prefix, 0)
                seen[prefix] = seen.get(prefix, 0) + 1
    return total


class SubmatrixSumDivisibleCounting(Environment):
    name = "SubmatrixSumDivisibleCounting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        k = rng.randint(2, n * m)
        matrix = [[rng.randint(0, k - 1) for _ in range(m)] for _ in range(n)]
        return {"matrix": matrix, "K": k, "reference": str(count_divisible(matrix, k))}

    def prompt(self, data):
        matrix = data["matrix"]
        return (
            f"You are given a {len(matrix)} x {len(matrix[0])} matrix:\n{grid_text(matrix)}\n\n"
            "How many contiguous (non-empty) submatrices, defined by a range of consecutive rows and a range of "
            f"consecutive columns, have a sum of entries divisible by {data['K']}?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10)
