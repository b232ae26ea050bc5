"""MaximumAchromaticNumber: a complete proper coloring (every two colors meet on an edge) with the most colors."""

from rlve_jax.gym.environments._common import adjacency_sets
from rlve_jax.gym.environments._graphs import GraphColoringEnvironment


def is_complete_coloring(edges: list[list[int]], colors: list[int]) -> bool:
    """Proper, and every pair of used colors is joined by at least one edge."""
    if any(colors[u] == colors[v] for u, v in edges):
        return False
    used = len(set(colors))
    return len({(min(colors[u], colors[v]), max(colors[u], colors[v])) for u, v in edges}) == used * (used - 1) // 2


def max_complete_coloring(n: int, edges: list[list[int]]) -> list[int]:
    """Branch and bound over color assignments (new colors in order of first use).

    Bound: a final coloring with K colors needs K(K-1)/2 joined color pairs; pairs joined so far plus
    edges not yet fully colored (each joins at most one more pair) must reach that.
    """
    adjacent = adjacency_sets(n, edges)
    order = sorted((v for v in range(n) if adjacent[v]), key=lambda v: -len(adjacent[v]))
    isolated = [v for v in range(n) if not adjacent[v]]
    position = {v: i for i, v in enumerate(order)}
    edges_left_after = [0] * (len(order) + 1)  # edges whose later endpoint has order index >= i
    for i in range(len(order) - 1, -1, -1):
        edges_left_after[i] = edges_left_after[i + 1] + sum(1 for w in adjacent[order[i]] if position[w] < i)
    colors = [-1] * n
    joined: dict[tuple[int, int], int] = {}
    best = [1, [0] * n]

    def most_colors(i: int, used: int) -> int:
        k = used + len(order) - i
        while k > best[0] and k * (k - 1) // 2 > len(joined) + edges_left_after[i]:
            k -= 1
        return k

    def assign(i: int, used: int) -> None:
        if most_colors(i, used) <= best[0]:
            return
        if i == len(order):
            if len(joined) == used * (used - 1) // 2:
                best[0], best[1] = used, colors[:]
            return
        v = order[i]
        taken = {colors[w] for w in adjacent[v] if colors[w] >= 0}
        for c in range(used + 1):
            if c in taken:
                continue
            pairs = [(min(c, colors[w]), max(c, colors[w])) for w in adjacent[v] if colors[w] >= 0]
            colors[v] = c
            for p in pairs:
                joined[p] = joined.get(p, 0) + 1
            assign(i + 1, max(used, c + 1))
            for p in pairs:
                joined[p] -= 1
                if not joined[p]:
                    del joined[p]
            colors[v] = -1

    assign(0, 0)
    coloring = best[1]
    for v in isolated:  # any color keeps a complete coloring complete
        coloring[v] = 0
    return coloring


class MaximumAchromaticNumber(GraphColoringEnvironment):
    name = "MaximumAchromaticNumber"
    maximize = True
    rules = ("- the coloring is proper: the two endpoints of every edge have different colors;\n"
             "- the coloring is complete: for every two distinct colors that are used, some edge joins a "
             "vertex of the one color to a vertex of the other.")

    def optimal_coloring(self, n, edges):
        return max_complete_coloring(n, edges)

    def is_valid(self, edges, colors):
        return is_complete_coloring(edges, colors)
