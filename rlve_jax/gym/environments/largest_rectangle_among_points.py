"""LargestRectangle_AmongPoints: four of the points forming a (possibly rotated) rectangle of maximum area."""

import math
from collections import defaultdict

from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_exact_ints
from rlve_jax.gym.env import Environment


def squared_distance(p: list[int], q: list[int]) -> int:
    return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2


def rectangle_area2(points: list[list[int]]) -> int:
    """Squared area if the four distinct points are the corners of a rectangle, else 0."""
    for (a, c), (b, d) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        pa, pb, pc, pd = (points[k] for k in (a, b, c, d))
        same_middle = pa[0] + pc[0] == pb[0] + pd[0] and pa[1] + pc[1] == pb[1] + pd[1]
        if same_middle and squared_distance(pa, pc) == squared_distance(pb, pd):
            return squared_distance(pa, pb) * squared_distance(pb, pc)  # a, b, c, d go around the rectangle
    return 0


def best_rectangle(points: list[list[int]]) -> tuple[int, list[int]]:
    """Two diagonals of a rectangle share their midpoint and length: group point pairs by both."""
    groups = defaultdict(list)
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            p, q = points[i], points[j]
            groups[p[0] + q[0], p[1] + q[1], squared_distance(p, q)].append((i, j))
    best, corners = 0, []
    for key in sorted(groups):
        diagonals = groups[key]
        for x, (a, c) in enumerate(diagonals):
            for b, d in diagonals[x + 1:]:
                area2 = squared_distance(points[a], points[b]) * squared_distance(points[b], points[c])
                if area2 > best:
                    best, corners = area2, [a, b, c, d]
    return best, corners


class LargestRectangle_AmongPoints(Environment):
    name = "LargestRectangle_AmongPoints"

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            chosen: set[tuple[int, int]] = set()
            for _ in range(rng.randint(1, max(1, n // 5))):  # planted lattice rectangles
                x, y = rng.randint(-n, n), rng.randint(-n, n)
                a, b = rng.randint(-n, n), rng.randint(-n, n)
                g = math.gcd(a, b)
                if g == 0:
                    continue
                s = rng.choice([-1, 1]) * rng.randint(1, 3)
                u, v = (a, b), (-b // g * s, a // g * s)
                corners = {(x, y), (x + u[0], y + u[1]), (x + u[0] + v[0], y + u[1] + v[1]), (x + v[0], y + v[1])}
                if all(-n <= cx <= n and -n <= cy <= n for cx, cy in corners) and len(chosen | corners) <= n:
                    chosen |= corners
            while len(chosen) < n:
                chosen.add((rng.randint(-n, n), rng.randint(-n, n)))
            points = [list(p) for p in sorted(chosen)]
            rng.shuffle(points)
            area2, corners = best_rectangle(points)
            if area2:
                return {"points": points, "best_area2": area2, "reference": " ".join(map(str, corners))}

    def prompt(self, data):
        points = "\n".join(f"Point {i}: ({x}, {y})" for i, (x, y) in enumerate(data["points"]))
        return (
            f"You are given {len(data['points'])} distinct points in the plane:\n{points}\n\n"
            "Choose four of them that are the corners of a rectangle (its sides need not be parallel to the axes) "
            "with the largest possible area.\n\n"
            "Output Format: a single line with the four point indices separated by spaces (in any order)."
        )

    def score(self, data, answer):
        indices = parse_exact_ints(answer, 4)
        points = data["points"]
        if len(set(indices)) != 4 or not all(0 <= i < len(points) for i in indices):
            return INVALID
        area2 = rectangle_area2([points[i] for i in indices])
        if not area2:
            return INVALID
        return (area2 / data["best_area2"]) ** 2.5  # (area / best area)^5
