"""MinimumSpanningTree (held-out): a minimum-weight spanning tree of a connected weighted graph."""

from rlve_jax.gym.environments._common import (
    INVALID, DisjointSets, drop_last_tokens, edge_lines, grow_1p1, minimization_reward, parse_ints, random_tree,
)
from rlve_jax.gym.environments._graphs import DENSITIES_L7
from rlve_jax.gym.env import Environment, FormatError

def kruskal(n: int, edges: list[list[int]]) -> list[list[int]]:
    sets = DisjointSets(n)
    return [[u, v, w] for u, v, w in sorted(edges, key=lambda e: e[2]) if sets.union(u, v)]


class MinimumSpanningTree(Environment):
    name = "MinimumSpanningTree"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        return [{"N": n, "edge_density": d} for d in DENSITIES_L7 if int(d * n * (n - 1) / 2) > n - 1]

    def sample(self, params, rng):
        n = params["N"]
        m = int(params["edge_density"] * n * (n - 1) / 2)
        pairs = {tuple(sorted(e)) for e in random_tree(n, rng, "coin")}
        others = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in pairs]
        pairs.update(rng.sample(others, m - len(pairs)))
        edges = [[u, v, rng.randint(1, m)] for u, v in sorted(pairs)]
        rng.shuffle(edges)
        tree = kruskal(n, edges)
        return {"N": n, "edges": edges, "optimum": sum(w for _, _, w in tree),
                "reference": " ".join(f"{u} {v}" for u, v, _ in tree)}

    def prompt(self, data):
        n = data["N"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"You are given a connected undirected graph with {n} vertices labeled 0 to {n - 1}. Each edge is "
            f"written as (u, v, w): it joins u and v and has weight w.\n{edges}\n\n"
            f"Find a spanning tree ({n - 1} edges of the graph connecting all vertices) with the minimum total "
            "weight.\n\n"
            f"Output Format: a single line with 2 * {n - 1} integers u1 v1 u2 v2 ..., the endpoints of the chosen "
            "edges, separated by spaces."
        )

    def score(self, data, answer):
        flat = parse_ints(answer)
        if len(flat) % 2:
            raise FormatError("odd number of endpoints")
        n = data["N"]
        weight_of = {}
        for u, v, w in data["edges"]:
            weight_of[u, v] = weight_of[v, u] = w
        chosen = list(zip(flat[::2], flat[1::2]))
        if len(chosen) != n - 1 or any(e not in weight_of for e in chosen):
            return INVALID
        sets = DisjointSets(n)
        if not all(sets.union(u, v) for u, v in chosen):
            return INVALID
        return minimization_reward(data["optimum"], sum(weight_of[e] for e in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer, 2)  # one edge short of a spanning tree
