"""BoundedMeanSubarrayCounting: count the contiguous subarrays whose mean is at least K."""

from itertools import accumulate

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def count_mean_at_least(values: list[int], k: int) -> int:
    """Subarrays with sum >= k * length, i.e. non-negative sums of (value - k)."""
    prefix = [0, *accumulate(v - k for v in values)]
    return sum(prefix[r] >= prefix[l] for l in range(len(values)) for r in range(l + 1, len(values) + 1))


class BoundedMeanSubarrayCounting(Environment):
    name = "BoundedMeanSubarrayCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, n) for _ in range(n)]
        k = rng.randint(min(values), max(values))
        return {"A": values, "K": k, "reference": str(count_mean_at_least(values, k))}

    def prompt(self, data):
        return (
            f"Given an array A of length {len(data['A'])}: {' '.join(map(str, data['A']))}\n"
            f"How many non-empty contiguous subarrays of A have an average (arithmetic mean) greater than or "
            f"equal to {data['K']}?\n\n"
            "Output Format: a single integer, the number of such subarrays."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), 10)
