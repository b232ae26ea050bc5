"""MinimumHarmoniousChromaticNumber: a proper coloring where each color pair appears on at most one edge."""

from environments._grapha_util import (DENSITIES_002_095, adjacency_masks, density_levels, edge_lines,
                                       max_clique_size, min_objective_reward, minimum_coloring, pair_count,
                                       parse_colors, random_pairs, recolor_perturb)
from rlve_jax.env import Environment


def is_harmonious(edges: list[list[int]], colors: list[int]) -> bool:
    pairs = [(min(colors[u], colors[v]), max(colors[u], colors[v])) for u, v in edges]
    return all(a != b for a, b in pairs) and len(set(pairs)) == len(pairs)


class MinimumHarmoniousChromaticNumber(Environment):
    name = "MinimumHarmoniousChromaticNumber"

    def levels(self, difficulty):
        return density_levels(5 + difficulty, DENSITIES_002_095)

    def sample(self, params, rng):
        """Vertices at distance <= 2 must differ (two same-colored neighbours repeat a pair), so the
        search colors the square graph, with a lower bound from its cliques and from the edge count."""
        n = params["N"]
        edges = random_pairs(rng, n, int(params["edge_density"] * pair_count(n)))
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
        colors = minimum_coloring(n, square, lower, harmonious_edges=neighbours)
        return {"N": n, "edges": edges, "optimum": len(set(colors)), "reference": " ".join(map(str, colors))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given an undirected graph with {n} vertices, labeled from 0 to {n - 1}. "
            "The graph contains the following undirected edges:\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"Assign each vertex i a color c[i], an integer from 0 to {n - 1}, such that:\n"
            "- the two endpoints of every edge have different colors;\n"
            "- no two edges have the same unordered pair of endpoint colors.\n"
            "Use as few distinct colors as possible.\n\n"
            f"Output Format: a single line with {n} integers c[0] c[1] ... c[{n - 1}], separated by spaces."
        )

    def score(self, data, answer):
        colors = parse_colors(answer, data["N"])
        if colors is None or not is_harmonious(data["edges"], colors):
            return -0.5
        return min_objective_reward(data["optimum"], len(set(colors)), beta=5)

    def perturb(self, problem, answer):
        return recolor_perturb(answer)
