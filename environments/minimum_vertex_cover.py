"""Minimum_VertexCover: the cheapest vertex set touching every edge."""

from environments._grapha_util import (DENSITIES_002_09, density_levels, drop_last_ints, edge_lines,
                                       min_objective_reward, min_weight_cover, pair_count, parse_vertex_set,
                                       random_pairs)
from rlve_jax.env import Environment


class Minimum_VertexCover(Environment):
    name = "Minimum_VertexCover"

    def levels(self, difficulty):
        return density_levels(4 + difficulty, DENSITIES_002_09)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(rng, n, int(params["edge_density"] * pair_count(n)))
        costs = [rng.randint(1, 10) for _ in range(n)]
        touched = [sum(1 << i for i, e in enumerate(edges) if v in e) for v in range(n)]
        chosen = min_weight_cover(touched, costs, (1 << len(edges)) - 1)
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
            "Select a set of distinct vertices such that every edge has at least one selected endpoint "
            "(a vertex cover), with the smallest possible total cost.\n\n"
            "Output Format: a single line with the selected vertices, separated by spaces, in any order."
        )

    def score(self, data, answer):
        chosen = parse_vertex_set(answer, data["N"])
        if chosen is None:
            return -0.5
        selected = set(chosen)
        if any(u not in selected and v not in selected for u, v in data["edges"]):
            return -0.5
        return min_objective_reward(data["optimum"], sum(data["costs"][v] for v in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_ints(answer, 1)  # an optimal cover is minimal: dropping a vertex breaks it
