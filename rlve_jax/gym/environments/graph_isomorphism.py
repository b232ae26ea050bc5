"""GraphIsomorphism: find a vertex permutation mapping one graph onto a relabeled copy of it."""

from rlve_jax.gym.environments._common import edge_lines, fraction_reward, parse_ints
from rlve_jax.gym.environments._graphs import DENSITIES_005_095, density_levels, pair_count, random_pairs
from rlve_jax.gym.env import Environment


class GraphIsomorphism(Environment):
    name = "GraphIsomorphism"

    def levels(self, difficulty):
        return density_levels(3 + difficulty, DENSITIES_005_095)

    def sample(self, params, rng):
        n = params["N"]
        first = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        mapping = list(range(n))
        rng.shuffle(mapping)
        second = [[mapping[u], mapping[v]] for u, v in first]
        rng.shuffle(second)
        second = [e if rng.random() < 0.5 else e[::-1] for e in second]
        return {"N": n, "edges1": first, "edges2": second, "reference": " ".join(map(str, mapping))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given two undirected graphs, G1 and G2, each with {n} vertices labeled from 0 to {n - 1}. "
            "Both graphs have the same number of edges.\n\n"
            f"- The edges of G1 are:\n{edge_lines(data['edges1'])}\n\n"
            f"- The edges of G2 are:\n{edge_lines(data['edges2'])}\n\n"
            "Find a bijection p (a permutation of 0..N-1) such that for every edge (u, v) of G1, "
            "(p(u), p(v)) is an edge of G2, i.e. p is an isomorphism from G1 to G2.\n\n"
            f"Output Format: a single line with {n} integers p(0) p(1) ... p({n - 1}), separated by spaces."
        )

    def score(self, data, answer):
        n = data["N"]
        mapping = parse_ints(answer)
        if sorted(mapping) != list(range(n)):
            return -0.5
        second = {(min(u, v), max(u, v)) for u, v in data["edges2"]}
        mapped = sum((min(mapping[u], mapping[v]), max(mapping[u], mapping[v])) in second for u, v in data["edges1"])
        return fraction_reward(mapped, len(second), beta=10)
