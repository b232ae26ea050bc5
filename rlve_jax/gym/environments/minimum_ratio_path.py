"""MinimumRatioPath: a path from 0 to N-1 minimising (largest edge weight) / (smallest edge weight)."""

from fractions import Fraction

from rlve_jax.gym.environments._common import DisjointSets, grow_1p1, parse_ints
from rlve_jax.gym.environments._graphs import RATIOS_1_3, WEIGHTED_EDGES, graph_text, random_pairs, ratio_levels
from rlve_jax.gym.env import Environment, FormatError


def best_ratio_path(n: int, edges: list[list[int]]) -> list[int]:
    """For each lightest allowed edge, add heavier edges until 0 and N-1 connect; keep the best window."""
    ordered = sorted(edges, key=lambda e: e[2])
    best = None
    for i, (_, _, low) in enumerate(ordered):
        sets = DisjointSets(n)
        for u, v, high in ordered[i:]:
            sets.union(u, v)
            if sets.find(0) == sets.find(n - 1):
                if best is None or Fraction(high, low) < best[0]:
                    best = (Fraction(high, low), low, high)
                break
    _, low, high = best
    adjacent: list[list[int]] = [[] for _ in range(n)]
    for u, v, w in edges:
        if low <= w <= high:
            adjacent[u].append(v)
            adjacent[v].append(u)
    previous, queue = {0: -1}, [0]
    for v in queue:
        for w in adjacent[v]:
            if w not in previous:
                previous[w] = v
                queue.append(w)
    path, v = [], n - 1
    while v >= 0:
        path.append(v)
        v = previous[v]
    return path[::-1]


def path_ratio(edges: list[list[int]], path: list[int]) -> Fraction | None:
    """max/min weight along the walk, or None if a step is not an edge."""
    weight = {}
    for u, v, w in edges:
        weight[u, v] = weight[v, u] = w
    steps = [weight.get(step) for step in zip(path, path[1:])]
    if not steps or None in steps:
        return None
    return Fraction(max(steps), min(steps))


class MinimumRatioPath(Environment):
    name = "MinimumRatioPath"

    def levels(self, difficulty):
        return ratio_levels(grow_1p1(4, difficulty), RATIOS_1_3)

    def sample(self, params, rng):
        """A planted path 0 -> (all other vertices in random order) -> N-1 keeps the ends connected; as in
        the original, the pair (0, N-1) is never an extra edge (else the one-edge path would often be optimal)."""
        n = params["N"]
        middle = list(range(1, n - 1))
        rng.shuffle(middle)
        order = [0] + middle + [n - 1]
        planted = [[a, b] for a, b in zip(order, order[1:])]
        pairs = planted + random_pairs(n, int(params["edge_ratio"] * n) - len(planted), rng,
                                       exclude=planted + [[0, n - 1]])
        rng.shuffle(pairs)
        oriented = (p if rng.random() < 0.5 else p[::-1] for p in pairs)
        edges = [[u, v, rng.randint(1, 5 * len(pairs))] for u, v in oriented]
        path = best_ratio_path(n, edges)
        ratio = path_ratio(edges, path)
        return {"N": n, "edges": edges, "optimum": [ratio.numerator, ratio.denominator],
                "reference": " ".join(map(str, path))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], edge_form=WEIGHTED_EDGES)
            + f"Find a path from vertex 0 to vertex {n - 1} (consecutive vertices must be joined by an edge) that "
            "minimizes the ratio between the largest and the smallest weight of the edges on the path.\n\n"
            f"Output Format: a single line with the vertices of the path in order, starting with 0 and ending "
            f"with {n - 1}, separated by spaces."
        )

    def score(self, data, answer):
        n = data["N"]
        path = parse_ints(answer)
        if not path:
            raise FormatError("empty path")  # the original: an empty answer is a format error (-1)
        if path[0] != 0 or path[-1] != n - 1 or any(not 0 <= v < n for v in path):
            return -0.5
        ratio = path_ratio(data["edges"], path)
        if ratio is None:
            return -0.5
        return float(min(Fraction(*data["optimum"]) / ratio, 1) ** 5)
