"""MaximumWeightMatching: a matching of largest total weight in an edge-weighted graph."""

import networkx as nx

from rlve_jax.gym.environments._common import drop_last_tokens, grow_1p1, maximization_reward, parse_flat_pairs
from rlve_jax.gym.environments._graphs import WEIGHTED_EDGES, density_levels, graph_text, pair_count, random_pairs
from rlve_jax.gym.env import Environment

DENSITIES = (0.1, 0.3, 0.4)


class MaximumWeightMatching(Environment):
    name = "MaximumWeightMatching"

    def levels(self, difficulty):
        return density_levels(grow_1p1(5, difficulty), DENSITIES)

    def sample(self, params, rng):
        n = params["N"]
        pairs = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        edges = [[u, v, rng.randint(1, n)] for u, v in pairs]
        graph = nx.Graph()
        graph.add_weighted_edges_from(edges)
        matching = sorted(tuple(sorted(e)) for e in nx.max_weight_matching(graph))
        weight = {(min(u, v), max(u, v)): w for u, v, w in edges}
        return {"N": n, "edges": edges, "optimum": sum(weight[e] for e in matching),
                "reference": " ".join(f"{u} {v}" for u, v in matching)}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], edge_form=WEIGHTED_EDGES)
            + "Select a set of edges such that no two selected edges share a vertex (a matching), and the "
            "total weight of the selected edges is as large as possible.\n\n"
            "Output Format: a single line `u1 v1 u2 v2 ...` listing the endpoints of the selected edges, "
            "all integers separated by spaces, in any order."
        )

    def score(self, data, answer):
        chosen = parse_flat_pairs(answer)
        weight = {(min(u, v), max(u, v)): w for u, v, w in data["edges"]}
        vertices = [v for pair in chosen for v in pair]
        if len(set(vertices)) != len(vertices) or any((min(u, v), max(u, v)) not in weight for u, v in chosen):
            return -0.5
        return maximization_reward(sum(weight[min(u, v), max(u, v)] for u, v in chosen), data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer, 2)
