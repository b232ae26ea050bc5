"""MinSumChebyshevDistance: an integer point minimizing the T-weighted sum of Chebyshev distances to N points."""

import numpy as np

from rlve_jax.gym.environments._common import grow_1p1, minimization_reward, parse_pair
from rlve_jax.gym.env import Environment


def weighted_distance(points: list[list[int]], x: int, y: int) -> int:
    return sum(t * max(abs(x - px), abs(y - py)) for px, py, t in points)


def best_point(points: list[list[int]]) -> tuple[int, int, int]:
    """(cost, x, y): moving a point into the bounding box never lengthens a distance, so an exhaustive
    search of the box (vectorized) is exact."""
    xs, ys, weights = (np.array(column, dtype=np.int64) for column in zip(*points))
    grid_x, grid_y = np.meshgrid(np.arange(xs.min(), xs.max() + 1), np.arange(ys.min(), ys.max() + 1), indexing="ij")
    gaps = np.maximum(np.abs(grid_x[..., None] - xs), np.abs(grid_y[..., None] - ys))  # [x, y, point]
    total = (gaps * weights).sum(axis=-1)
    i, j = np.unravel_index(np.argmin(total), total.shape)
    return int(total[i, j]), int(grid_x[i, j]), int(grid_y[i, j])


class MinSumChebyshevDistance(Environment):
    name = "MinSumChebyshevDistance"

    def levels(self, difficulty):
        return [{"N": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        points = [[rng.randint(1, 2 * n), rng.randint(1, 2 * n), rng.randint(1, n)] for _ in range(n)]
        best, x, y = best_point(points)
        return {"points": points, "optimum": best, "reference": f"{x} {y}"}

    def prompt(self, data):
        points = "\n".join(f"(X={x}, Y={y}), T={t}" for x, y, t in data["points"])
        return (
            f"You are given {len(data['points'])} points on the plane, each with a weight T:\n{points}\n\n"
            "Find an integer point (x, y) that minimizes the sum over all points of T * max(|x - X|, |y - Y|) "
            "(the weighted Chebyshev distance).\n\n"
            "Output Format: a single line with two integers `x y` separated by a space."
        )

    def score(self, data, answer):
        values = parse_pair(answer)
        return minimization_reward(data["optimum"], weighted_distance(data["points"], *values), beta=5)

    def perturb(self, problem, answer):
        """Far to the right of every point (a plateau of optima makes a one-step move ambiguous)."""
        x, y = map(int, answer.split())
        return f"{x + 4 * len(problem.data['points'])} {y}"
