"""MinimumDirectedSpanningTree: a minimum-weight spanning arborescence out of a given root."""

import networkx as nx

from rlve_jax.gym.environments._common import (
    drop_last_tokens, grow_1p1, minimization_reward, parse_flat_pairs, random_tree,
)
from rlve_jax.gym.environments._graphs import DENSITIES_L7, WEIGHTED_ARCS, density_levels, graph_text, random_pairs
from rlve_jax.gym.env import Environment


class MinimumDirectedSpanningTree(Environment):
    name = "MinimumDirectedSpanningTree"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        return density_levels(n, DENSITIES_L7, min_edges=n, directed=True)

    def sample(self, params, rng):
        """A planted arborescence (a random tree oriented away from its first vertex) guarantees existence;
        the extra arcs are uniform over all absent ordered pairs (arcs into the root included, as in the
        original, though no arborescence uses them), weights U[1, floor(density * N(N-1))]."""
        n = params["N"]
        planted = random_tree(n, rng)
        root = planted[0][0]
        total = int(params["edge_density"] * n * (n - 1))
        pairs = planted + random_pairs(n, total - (n - 1), rng, directed=True, exclude=planted)
        rng.shuffle(pairs)
        edges = [[s, t, rng.randint(1, max(1, total))] for s, t in pairs]
        graph = nx.DiGraph()
        graph.add_weighted_edges_from(e for e in edges if e[1] != root)  # so networkx keeps this root
        tree = sorted(nx.minimum_spanning_arborescence(graph).edges)
        weight = {(s, t): w for s, t, w in edges}
        return {"N": n, "root": root, "edges": edges, "optimum": sum(weight[e] for e in tree),
                "reference": " ".join(f"{s} {t}" for s, t in tree)}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], directed=True, edge_form=WEIGHTED_ARCS)
            + f"Select exactly {n - 1} edges that form a spanning arborescence rooted at vertex {data['root']}: "
            f"every vertex can be reached from vertex {data['root']} using only the selected edges (so every "
            "other vertex has exactly one selected incoming edge). Minimize the total weight of the selected "
            "edges.\n\n"
            "Output Format: a single line `s1 t1 s2 t2 ...` listing the selected edges as source and target, "
            "all integers separated by spaces, in any order."
        )

    def score(self, data, answer):
        n, root = data["N"], data["root"]
        chosen = parse_flat_pairs(answer)
        weight = {(s, t): w for s, t, w in data["edges"]}
        if len(chosen) != n - 1 or any(e not in weight for e in chosen):
            return -0.5
        children: list[list[int]] = [[] for _ in range(n)]
        for s, t in chosen:
            children[s].append(t)
        reached, stack = {root}, [root]
        while stack:
            for t in children[stack.pop()]:
                if t not in reached:
                    reached.add(t)
                    stack.append(t)
        if len(reached) != n:  # n-1 edges reaching all n vertices form an arborescence
            return -0.5
        return minimization_reward(data["optimum"], sum(weight[e] for e in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer, 2)
