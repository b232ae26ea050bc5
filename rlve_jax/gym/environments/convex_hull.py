"""ConvexHull (held-out): twice the area of the convex hull of lattice points in general position."""

from math import gcd

from rlve_jax.gym.environments._common import grow_1p1, perturb_count, score_count
from rlve_jax.gym.env import Environment


def twice_hull_area(points: list[list[int]]) -> int:
    """Monotone chain hull, then the shoelace formula (an integer for lattice points)."""
    pts = sorted(map(tuple, points))

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def chain(seq):
        hull: list[tuple[int, int]] = []
        for p in seq:
            while len(hull) >= 2 and cross(hull[-2], hull[-1], p) <= 0:
                hull.pop()
            hull.append(p)
        return hull[:-1]

    hull = chain(pts) + chain(reversed(pts))
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(hull, hull[1:] + hull[:1])))


def _direction(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The primitive direction of the line through a and b, with a canonical sign."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    g = gcd(dx, dy)
    dx, dy = dx // g, dy // g
    return (dx, dy) if dx > 0 or (dx == 0 and dy > 0) else (-dx, -dy)


def general_position_points(n: int, side: int, rng) -> list[list[int]]:
    """n distinct lattice points in [0, side]^2, no three collinear (greedy, restarting if stuck)."""
    while True:
        points: list[tuple[int, int]] = []
        for _ in range(200 * n):
            candidate = (rng.randint(0, side), rng.randint(0, side))
            if candidate in points:
                continue
            directions = [_direction(candidate, p) for p in points]
            if len(set(directions)) == len(directions):
                points.append(candidate)
                if len(points) == n:
                    return [list(p) for p in points]


class ConvexHull(Environment):
    name = "ConvexHull"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        points = general_position_points(n, n, rng)
        return {"points": points, "reference": str(twice_hull_area(points))}

    def prompt(self, data):
        points = "\n".join(f"({x}, {y})" for x, y in data["points"])
        return (
            f"You are given {len(data['points'])} points in the plane with integer coordinates; they are distinct "
            f"and no three of them are collinear:\n{points}\n\n"
            "Find the convex hull of these points and compute its area. Since the area is a multiple of 1/2, "
            "report twice the area.\n\n"
            "Output Format: a single integer equal to 2 times the area of the convex hull."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=5, positive=True)
