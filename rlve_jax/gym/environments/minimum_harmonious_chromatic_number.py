"""MinimumHarmoniousChromaticNumber: a proper coloring where each color pair appears on at most one edge."""

from rlve_jax.gym.environments._common import adjacency_masks
from rlve_jax.gym.environments._graphs import GraphColoringEnvironment, max_clique_size, minimum_coloring


def is_harmonious(edges: list[list[int]], colors: list[int]) -> bool:
    pairs = [(min(colors[u], colors[v]), max(colors[u], colors[v])) for u, v in edges]
    return all(a != b for a, b in pairs) and len(set(pairs)) == len(pairs)


class MinimumHarmoniousChromaticNumber(GraphColoringEnvironment):
    name = "MinimumHarmoniousChromaticNumber"
    rules = ("- the two endpoints of every edge have different colors;\n"
             "- no two edges have the same unordered pair of endpoint colors.")

    def optimal_coloring(self, n, edges):
        """Vertices at distance <= 2 must differ (two same-colored neighbours repeat a pair), so the
        search colors the square graph, with a lower bound from its cliques and from the edge count."""
        neighbours = adjacency_masks(n, edges)
        square = []
        for v in range(n):
            reach = neighbours[v]
            for u in range(n):
                if neighbours[v] >> u & 1:
                    reach |= neighbours[u]
            square.append(reach & ~(1 << v))
        pair_bound = next(k for k in range(1, n + 1) if k * (k - 1) // 2 >= len(edges))
        lower = max(pair_bound, max_clique_size(n, square)[0])
        return minimum_coloring(n, square, lower, harmonious_edges=neighbours)

    def is_valid(self, edges, colors):
        return is_harmonious(edges, colors)
