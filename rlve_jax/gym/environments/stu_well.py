"""STUWell: with at most M unit decrements, leaving some zero, minimise the largest neighbour difference."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def cost_for_slope(values: list[int], slope: int) -> int:
    """Fewest decrements for |x_i - x_(i+1)| <= slope with some x_k = 0: smooth both ways, then dig at the best k."""
    smooth = list(values)
    for i in range(1, len(smooth)):
        smooth[i] = min(smooth[i], smooth[i - 1] + slope)
    for i in range(len(smooth) - 2, -1, -1):
        smooth[i] = min(smooth[i], smooth[i + 1] + slope)
    base = sum(values) - sum(smooth)
    dig = min(sum(max(0, h - slope * abs(i - k)) for i, h in enumerate(smooth)) for k in range(len(smooth)))
    return base + dig


def min_max_difference(values: list[int], budget: int) -> int:
    """The cost falls as the allowed slope grows, so binary search the smallest affordable slope."""
    low, high = 0, max(values)
    while low < high:
        mid = (low + high) // 2
        if cost_for_slope(values, mid) <= budget:
            high = mid
        else:
            low = mid + 1
    return low


class STUWell(ExactIntegerEnvironment):
    name = "STUWell"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, 4 * n) for _ in range(n)]
        budget = rng.randint(min(values), sum(values))
        return {"X": values, "M": budget, "reference": str(min_max_difference(values, budget))}

    def prompt(self, data):
        n = len(data["X"])
        return (
            f"You are given a sequence of {n} positive integers: {' '.join(map(str, data['X']))}\n"
            f"You may perform at most {data['M']} operations; each operation decreases one element by 1 (elements "
            "must stay non-negative). After the operations at least one element must be 0. What is the smallest "
            "possible value of the largest absolute difference between two neighbouring elements?\n\n"
            "Output Format: a single integer."
        )
