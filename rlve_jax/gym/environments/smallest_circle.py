"""SmallestCircle: the minimum enclosing circle of lattice points in general position."""

import math
import random

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import check_length, grow_1p1, parse_float


TOLERANCE = 1e-3  # a point may lie this far outside the answer's circle


def circle_from(points: list[list[int]]) -> tuple[float, float, float]:
    """The circle with two points as a diameter, or through three non-collinear points."""
    if len(points) == 2:
        (ax, ay), (bx, by) = points
        return (ax + bx) / 2, (ay + by) / 2, math.dist((ax, ay), (bx, by)) / 2
    (ax, ay), (bx, by), (cx, cy) = points
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    ux = ((ax * ax + ay * ay) * (by - cy) + (bx * bx + by * by) * (cy - ay) + (cx * cx + cy * cy) * (ay - by)) / d
    uy = ((ax * ax + ay * ay) * (cx - bx) + (bx * bx + by * by) * (ax - cx) + (cx * cx + cy * cy) * (bx - ax)) / d
    return ux, uy, math.dist((ux, uy), (ax, ay))


def enclosing_circle(rng: random.Random, points: list[list[int]]) -> tuple[float, float, float]:
    """Welzl's randomised incremental algorithm (expected linear time)."""
    order = points[:]
    rng.shuffle(order)

    def inside(circle, p) -> bool:
        return math.dist(circle[:2], p) <= circle[2] + 1e-9

    circle = (order[0][0], order[0][1], 0.0)
    for i, p in enumerate(order):
        if inside(circle, p):
            continue
        circle = (p[0], p[1], 0.0)
        for j, q in enumerate(order[:i]):
            if inside(circle, q):
                continue
            circle = circle_from([p, q])
            for s in order[:j]:
                if not inside(circle, s):
                    circle = circle_from([p, q, s])
    return circle


def on_a_line_with_two(p: list[int], points: list[list[int]]) -> bool:
    """Whether p lies on a line through two of `points` (none equal to p): two of the directions from p to
    them, reduced and with one sign, coincide. Linear in the points, where testing every pair is quadratic."""
    seen = set()
    for x, y in points:
        dx, dy = x - p[0], y - p[1]
        g = math.gcd(dx, dy)
        dx, dy = dx // g, dy // g
        if dx < 0 or (dx == 0 and dy < 0):
            dx, dy = -dx, -dy
        if (dx, dy) in seen:
            return True
        seen.add((dx, dy))
    return False


class SmallestCircle(Environment):
    name = "SmallestCircle"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        points: list[list[int]] = []
        while len(points) < n:  # distinct, no three collinear
            p = [rng.randint(0, 2 * n), rng.randint(0, 2 * n)]
            if p not in points and not on_a_line_with_two(p, points):
                points.append(p)
        x, y, r = enclosing_circle(rng, points)
        return {"points": points, "radius": r, "reference": f"{x:.10f} {y:.10f} {r:.10f}"}

    def pass_threshold(self, data):
        radius = data["radius"]
        return (radius / (radius + TOLERANCE)) ** 10

    def prompt(self, data):
        points = "\n".join(f"({x}, {y})" for x, y in data["points"])
        return (
            f"You are given {len(data['points'])} points in the plane (distinct, no three on one line):\n{points}\n\n"
            "Find the smallest circle that contains all of them (on its boundary or inside).\n\n"
            "Output Format: a single line with three decimal numbers x y r separated by spaces: the centre (x, y) "
            "and the radius r, each with at least 4 digits after the decimal point (a point may lie at most 0.001 "
            "outside your circle, and r may exceed the smallest radius by at most 0.001)."
        )

    def score(self, data, answer):
        values = check_length(answer).split()
        if len(values) != 3:
            raise FormatError("expected three numbers")
        x, y, r = (parse_float(v) for v in values)
        if r <= 0:
            raise FormatError("the radius must be positive")
        if any(math.dist((x, y), p) > r + TOLERANCE for p in data["points"]):
            return 0.0
        return min((data["radius"] / r) ** 10, 1.0)

    def perturb(self, problem, answer):
        x, y, r = answer.split()
        return f"{x} {y} {float(r) + 1:.10f}"
