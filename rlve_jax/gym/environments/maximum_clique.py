"""MaximumClique: a largest set of pairwise adjacent vertices."""

from rlve_jax.gym.environments._common import (
    adjacency_masks, drop_last_tokens, maximization_reward, parse_distinct_indices,
)
from rlve_jax.gym.environments._graphs import (
    DENSITIES_005_095, density_levels, graph_text, max_clique_size, pair_count, random_pairs,
)
from rlve_jax.gym.env import Environment


class MaximumClique(Environment):
    name = "MaximumClique"

    def levels(self, difficulty):
        return density_levels(4 + 2 * difficulty, DENSITIES_005_095)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        size, mask = max_clique_size(n, adjacency_masks(n, edges))
        return {"N": n, "edges": edges, "optimum": size,
                "reference": " ".join(str(v) for v in range(n) if mask >> v & 1)}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"])
            + "Find a clique of maximum size: a set of distinct vertices in which every two vertices are "
            "joined by an edge.\n\n"
            "Output Format: a single line with the vertices of the clique, separated by spaces, in any order."
        )

    def score(self, data, answer):
        clique = parse_distinct_indices(answer, data["N"])
        edges = {(min(u, v), max(u, v)) for u, v in data["edges"]}
        if clique is None or any((min(u, v), max(u, v)) not in edges for i, u in enumerate(clique) for v in clique[:i]):
            return -0.5
        return maximization_reward(len(clique), data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
