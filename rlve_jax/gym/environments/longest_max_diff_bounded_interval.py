"""LongestMaxDiffBoundedInterval: the longest subarray whose maximum minus minimum is at most K."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_pair
from rlve_jax.gym.env import Environment


UNSUCCESSFUL = -0.2  # a real interval that breaks the max - min <= K condition


def longest_interval(values: list[int], k: int) -> tuple[int, int]:
    """A longest half-open [l, r) with max - min <= k (quadratic scan, the sizes are small)."""
    best = (0, 1)
    for l in range(len(values)):
        low = high = values[l]
        for r in range(l + 1, len(values) + 1):
            low, high = min(low, values[r - 1]), max(high, values[r - 1])
            if high - low > k:
                break
            if r - l > best[1] - best[0]:
                best = (l, r)
    return best


class LongestMaxDiffBoundedInterval(Environment):
    name = "LongestMaxDiffBoundedInterval"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            values = [rng.randint(0, n) for _ in range(n)]
            if max(values) > min(values):
                break
        k = rng.randint(0, max(values) - min(values) - 1)
        l, r = longest_interval(values, k)
        return {"A": values, "K": k, "reference": f"{l} {r}"}

    def prompt(self, data):
        return (
            f"You are given an array A of length {len(data['A'])} (indexed from 0):\n"
            f"{' '.join(map(str, data['A']))}\n"
            f"Find the longest contiguous subarray A[l], A[l+1], ..., A[r-1] (0 <= l < r <= {len(data['A'])}) whose "
            f"maximum minus minimum is at most {data['K']}.\n\n"
            "Output Format: two integers `l r` separated by a space (the subarray is A[l..r-1], r exclusive)."
        )

    def score(self, data, answer):
        l, r = parse_pair(answer)
        if not 0 <= l < r <= len(data["A"]):
            return INVALID
        window = data["A"][l:r]
        if max(window) - min(window) > data["K"]:
            return UNSUCCESSFUL
        best = list(map(int, data["reference"].split()))
        return fraction_reward(r - l, best[1] - best[0], 5)
