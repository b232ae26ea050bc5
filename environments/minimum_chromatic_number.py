"""MinimumChromaticNumber: a proper vertex coloring with the fewest colors."""

from environments._grapha_util import (DENSITIES_002_095, adjacency_masks, density_levels, edge_lines,
                                       max_clique_size, min_objective_reward, minimum_coloring, pair_count,
                                       parse_colors, random_pairs, recolor_perturb)
from rlve_jax.env import Environment


class MinimumChromaticNumber(Environment):
    name = "MinimumChromaticNumber"

    def levels(self, difficulty):
        return density_levels(5 + difficulty, DENSITIES_002_095)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(rng, n, int(params["edge_density"] * pair_count(n)))
        neighbours = adjacency_masks(n, edges)
        colors = minimum_coloring(n, neighbours, lower=max_clique_size(n, neighbours)[0])
        return {"N": n, "edges": edges, "optimum": len(set(colors)), "reference": " ".join(map(str, colors))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given an undirected graph with {n} vertices, labeled from 0 to {n - 1}. "
            "The graph contains the following undirected edges:\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"Assign each vertex i a color c[i], an integer from 0 to {n - 1}, so that the two endpoints of "
            "every edge have different colors, using as few distinct colors as possible.\n\n"
            f"Output Format: a single line with {n} integers c[0] c[1] ... c[{n - 1}], separated by spaces."
        )

    def score(self, data, answer):
        colors = parse_colors(answer, data["N"])
        if colors is None or any(colors[u] == colors[v] for u, v in data["edges"]):
            return -0.5
        return min_objective_reward(data["optimum"], len(set(colors)), beta=5)

    def perturb(self, problem, answer):
        return recolor_perturb(answer)
