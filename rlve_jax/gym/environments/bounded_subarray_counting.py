"""BoundedSubarrayCounting: count subarrays with sum <= K in an array repeated M times."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def count_sum_at_most(values: list[int], k: int) -> int:
    """Two pointers over positive values: for each right end, the shortest window start that fits."""
    count = total = left = 0
    for right, value in enumerate(values):
        total += value
        while total > k:
            total -= values[left]
            left += 1
        count += right - left + 1
    return count


class BoundedSubarrayCounting(Environment):
    name = "BoundedSubarrayCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty), "M": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n, m = params["N"], params["M"]
        values = [rng.randint(1, n) for _ in range(n)]
        k = rng.randint(max(values), m * sum(values))
        return {"A": values, "M": m, "K": k, "reference": str(count_sum_at_most(values * m, k))}

    def prompt(self, data):
        return (
            f"Given an array A of length {len(data['A'])}: {' '.join(map(str, data['A']))}\n"
            f"Let B be A repeated {data['M']} times (concatenated), so B has length "
            f"{len(data['A']) * data['M']}. How many non-empty contiguous subarrays of B have a sum less than or "
            f"equal to {data['K']}? (Subarrays at different positions count separately.)\n\n"
            "Output Format: a single integer, the number of such subarrays."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), 10)
