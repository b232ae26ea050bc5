"""FixedOneEdgeNum_SpanningTree: a spanning tree of a 0/1-weighted graph with exactly K weight-1 edges."""

from rlve_jax.gym.environments._common import drop_last_tokens, grow_1p1, parse_flat_pairs, random_tree
from rlve_jax.gym.environments._graphs import (
    RATIOS_1_3, WEIGHTED_EDGES, graph_text, is_spanning_tree, random_pairs, ratio_levels,
)
from rlve_jax.gym.env import Environment


class FixedOneEdgeNum_SpanningTree(Environment):
    name = "FixedOneEdgeNum_SpanningTree"

    def levels(self, difficulty):
        return ratio_levels(grow_1p1(4, difficulty), RATIOS_1_3)

    def sample(self, params, rng):
        """K is the weight-1 count of a planted spanning tree hidden among random extra edges."""
        n = params["N"]
        tree = random_tree(n, rng)
        pairs = tree + random_pairs(n, int(params["edge_ratio"] * n) - (n - 1), rng, exclude=tree)
        edges = [[u, v, rng.randint(0, 1)] for u, v in pairs]
        k = sum(w for _, _, w in edges[:n - 1])
        reference = " ".join(f"{u} {v}" for u, v, _ in edges[:n - 1])
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "K": k, "reference": reference}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], edge_form=WEIGHTED_EDGES + " (0 or 1)")
            + f"Find a spanning tree of this graph ({n - 1} of the edges that connect all vertices without a "
            f"cycle) that contains exactly {data['K']} edges of weight 1.\n\n"
            "Output Format: a single line `u1 v1 u2 v2 ...` listing the endpoints of the tree's edges, "
            "all integers separated by spaces, in any order."
        )

    def score(self, data, answer):
        chosen = parse_flat_pairs(answer)
        weight = {(min(u, v), max(u, v)): w for u, v, w in data["edges"]}
        if not is_spanning_tree(data["N"], chosen, set(weight)):
            return -0.5
        return float(sum(weight[min(u, v), max(u, v)] for u, v in chosen) == data["K"])

    def perturb(self, problem, answer):
        return drop_last_tokens(answer, 2)
