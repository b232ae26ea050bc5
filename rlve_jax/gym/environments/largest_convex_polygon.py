"""LargestConvexPolygon (C16): the largest subset of points (no three collinear) in convex position."""

from math import atan2

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints


def cross(o, a, b) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def hull_size(points: list[list[int]]) -> int:
    """Number of vertices of the convex hull (monotone chain; no three points are collinear)."""
    pts = sorted(map(tuple, points))
    if len(pts) < 3:
        return len(pts)

    def chain(sequence):
        out: list = []
        for p in sequence:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    return len(chain(pts) + chain(pts[::-1]))


def largest_convex_subset(points: list[list[int]]) -> list[int]:
    """Indices of a maximum convex polygon: for each lowest vertex, a DP over counter-clockwise
    chains sorted by angle, extending edge (i -> j) only with left turns. O(N^4)."""
    best: list[int] = []
    n = len(points)
    for anchor in range(n):
        ax, ay = points[anchor]
        above = sorted((k for k in range(n) if (points[k][1], points[k][0]) > (ay, ax)),
                       key=lambda k: atan2(points[k][1] - ay, points[k][0] - ax))
        # length[(i, j)]: vertices of the chain anchor, ..., i, j; parent[(i, j)] = vertex before i.
        length, parent = {}, {}
        for pos_j, j in enumerate(above):
            length[anchor, j] = 2
            for i in above[:pos_j]:
                candidates = [(length[k, i] + 1, k) for k in [anchor] + above
                              if (k, i) in length and cross(points[k], points[i], points[j]) > 0]
                if candidates:
                    length[i, j], parent[i, j] = max(candidates)
        for (i, j), size in length.items():
            if size >= 3 and size > len(best) and cross(points[i], points[j], points[anchor]) > 0:
                chain, edge = [j, i], (i, j)
                while edge in parent:
                    edge = (parent[edge], edge[0])
                    chain.append(edge[0])
                if chain[-1] != anchor:
                    chain.append(anchor)
                best = chain[::-1]
    return best


class LargestConvexPolygon(Environment):
    name = "LargestConvexPolygon"

    def levels(self, difficulty):
        return [{"N": 5 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # restart in the rare case the grid fills up with collinear obstructions
            points: list[list[int]] = []
            for _ in range(50 * n):
                p = [rng.randint(0, n), rng.randint(0, n)]
                if p not in points and all(cross(a, b, p) != 0 for i, a in enumerate(points)
                                           for b in points[i + 1:]):
                    points.append(p)
                    if len(points) == n:
                        chosen = largest_convex_subset(points)
                        return {"points": points, "optimum": len(chosen),
                                "reference": " ".join(str(i + 1) for i in chosen)}

    def prompt(self, data):
        listing = "\n".join(f"Point {i + 1}: ({x}, {y})" for i, (x, y) in enumerate(data["points"]))
        return (
            f"You are given {len(data['points'])} points in the plane; no three of them are collinear:\n"
            f"{listing}\n\n"
            "Choose as many of these points as possible such that the chosen points are the vertices of a "
            "convex polygon (every chosen point is a corner of the convex hull of the chosen points). "
            "At least 3 points must be chosen.\n\n"
            "Output Format: the labels (1-based) of the chosen points separated by spaces, in any order."
        )

    def score(self, data, answer):
        labels = parse_ints(answer)
        points = data["points"]
        if len(set(labels)) != len(labels) or any(not 1 <= x <= len(points) for x in labels):
            return -0.5
        chosen = [points[x - 1] for x in labels]
        if len(chosen) < 3 or hull_size(chosen) != len(chosen):
            return -0.2
        return (len(chosen) / data["optimum"]) ** 5

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # a duplicate label
