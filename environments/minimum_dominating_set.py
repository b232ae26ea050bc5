"""Minimum_DominatingSet: the cheapest vertex set such that every vertex is in it or adjacent to it."""

from environments._grapha_util import (DENSITIES_002_09, adjacency_masks, density_levels, drop_last_ints,
                                       edge_lines, min_objective_reward, min_weight_cover, pair_count,
                                       parse_vertex_set, random_pairs)
from rlve_jax.env import Environment


class Minimum_DominatingSet(Environment):
    name = "Minimum_DominatingSet"

    def levels(self, difficulty):
        return density_levels(4 + difficulty, DENSITIES_002_09)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(rng, n, int(params["edge_density"] * pair_count(n)))
        costs = [rng.randint(1, 10) for _ in range(n)]
        closed = [mask | 1 << v for v, mask in enumerate(adjacency_masks(n, edges))]
        chosen = min_weight_cover(closed, costs, (1 << n) - 1)
        return {"N": n, "edges": edges, "costs": costs, "optimum": sum(costs[v] for v in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        n = data["N"]
        costs = " ".join(f"C[{v}]={c}" for v, c in enumerate(data["costs"]))
        return (
            f"You are given an undirected graph with {n} vertices, labeled from 0 to {n - 1}. "
            "The graph contains the following undirected edges:\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"Each vertex has a cost: {costs}\n\n"
            "Select a set of distinct vertices such that every vertex is either selected or adjacent to a "
            "selected vertex (a dominating set), with the smallest possible total cost.\n\n"
            "Output Format: a single line with the selected vertices, separated by spaces, in any order."
        )

    def score(self, data, answer):
        chosen = parse_vertex_set(answer, data["N"])
        if chosen is None:
            return -0.5
        neighbours = adjacency_masks(data["N"], data["edges"])
        dominated = 0
        for v in chosen:
            dominated |= neighbours[v] | 1 << v
        if dominated != (1 << data["N"]) - 1:
            return -0.5
        return min_objective_reward(data["optimum"], sum(data["costs"][v] for v in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_ints(answer, 1)  # an optimal set is minimal: dropping a vertex breaks it
