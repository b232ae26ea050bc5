"""HamiltonianPathExistence: find a path through every vertex exactly once in a digraph with a planted one."""

from rlve_jax.gym.environments._graphs import DENSITIES_005_095, density_levels, graph_text, pair_count, random_pairs
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import fraction_reward, parse_ints


class HamiltonianPathExistence(Environment):
    name = "HamiltonianPathExistence"

    def levels(self, difficulty):
        n = 3 + difficulty
        return density_levels(n, DENSITIES_005_095, min_edges=n, directed=True)  # as HamiltonianPath

    def sample(self, params, rng):
        n = params["N"]
        path = list(range(n))
        rng.shuffle(path)
        planted = [[a, b] for a, b in zip(path, path[1:])]
        edges = planted + random_pairs(n, int(params["edge_density"] * pair_count(n, directed=True)) - (n - 1), rng, directed=True, exclude=planted)
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "reference": " ".join(map(str, path))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], directed=True, edge_form=", each written as (s, t) for an edge from s to t")
            + "Find a path that visits every vertex exactly once: a permutation p1, p2, ..., pN of the vertices "
            "such that for every consecutive pair (p_i, p_{i+1}) there is a directed edge from p_i to p_{i+1}. "
            "Such a path is guaranteed to exist.\n\n"
            f"Output Format: a single line with the {n} vertices of the path in order, separated by spaces."
        )

    def score(self, data, answer):
        n = data["N"]
        path = parse_ints(answer)
        if sorted(path) != list(range(n)):
            return -0.5
        edges = {tuple(e) for e in data["edges"]}
        return fraction_reward(sum((a, b) in edges for a, b in zip(path, path[1:])), n - 1, beta=5)
