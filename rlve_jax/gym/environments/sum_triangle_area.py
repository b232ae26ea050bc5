"""SumTriangleArea: twice the total area of all triangles with corners among N lattice points."""

from itertools import combinations

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import score_count


def doubled_area_sum(points: list[list[int]]) -> int:
    return sum(abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
               for a, b, c in combinations(points, 3))


class SumTriangleArea(Environment):
    name = "SumTriangleArea"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        grid = [[x, y] for x in range(n + 1) for y in range(n + 1)]
        points = rng.sample(grid, n)
        return {"points": points, "answer": doubled_area_sum(points)}

    def prompt(self, data):
        points = "\n".join(f"({x}, {y})" for x, y in data["points"])
        return (
            f"You are given {len(data['points'])} distinct points with integer coordinates:\n{points}\n\n"
            "Consider every triangle whose three corners are three different points from this list (degenerate "
            "triangles have area 0). Compute twice the sum of their areas (this is always an integer).\n\n"
            "Output Format: a single integer, twice the total area."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
