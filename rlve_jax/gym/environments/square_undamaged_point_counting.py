"""SquareUndamagedPointCounting: count lattice squares (any orientation) whose corners avoid damaged points."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def count_squares(width: int, height: int, damaged: list[list[int]]) -> int:
    """Each square has exactly one side vector (a, b) with a >= 1, b >= 0; its corners are p + offsets."""
    total = 0
    for a in range(1, min(width, height) + 1):
        for b in range(0, min(width, height) - a + 1):
            offsets = ((0, 0), (a, b), (a - b, a + b), (-b, a))
            x_range, y_range = (b, width - a), (0, height - a - b)
            blocked = {(dx - ox, dy - oy) for dx, dy in damaged for ox, oy in offsets
                       if x_range[0] <= dx - ox <= x_range[1] and y_range[0] <= dy - oy <= y_range[1]}
            total += (x_range[1] - x_range[0] + 1) * (y_range[1] - y_range[0] + 1) - len(blocked)
    return total


class SquareUndamagedPointCounting(Environment):
    name = "SquareUndamagedPointCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        width, height = rng.randint(1, params["MAX_N_M"]), rng.randint(1, params["MAX_N_M"])
        points = [[x, y] for x in range(width + 1) for y in range(height + 1)]
        damaged = sorted(rng.sample(points, rng.randint(1, max(1, len(points) // 5))))
        return {"N": width, "M": height, "damaged": damaged, "answer": count_squares(width, height, damaged)}

    def prompt(self, data):
        damaged = ", ".join(f"({x}, {y})" for x, y in data["damaged"])
        return (
            f"Consider the lattice points (x, y) with integers 0 <= x <= {data['N']} and 0 <= y <= {data['M']}. "
            f"The following points are damaged: {damaged}.\n"
            "Count the squares whose four corners are all undamaged lattice points of this range. Squares may be "
            "tilted (their sides need not be parallel to the axes); squares with the same four corners count "
            "once.\n\n"
            "Output Format: a single integer, the number of squares."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
