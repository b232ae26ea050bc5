"""SubgraphIsomorphism (held-out): embed G1 into G2 as an induced subgraph."""

from itertools import combinations

from rlve_jax.gym.environments._common import INVALID, distinct_in_range, edge_lines, fraction_reward, parse_ints, sweep
from rlve_jax.gym.env import Environment

DENSITIES = sweep(0.05, 0.95)  # 0.05, 0.15, ..., 0.95; kept when G2 gets at least one edge


class SubgraphIsomorphism(Environment):
    name = "SubgraphIsomorphism"
    size_keys = ("N2",)

    def levels(self, difficulty):
        n2 = 3 + difficulty
        return [{"N2": n2, "edge_density": d} for d in DENSITIES if int(d * n2 * (n2 - 1) / 2) >= 1]

    def sample(self, params, rng):
        n2 = params["N2"]
        pairs = list(combinations(range(n2), 2))
        edges2 = sorted(rng.sample(pairs, int(params["edge_density"] * len(pairs))))
        n1 = rng.randint(3, n2)
        mapping = rng.sample(range(n2), n1)  # G1 vertex i is G2 vertex mapping[i]
        present = set(edges2)
        edges1 = [[i, j] for i, j in combinations(range(n1), 2)
                  if (min(mapping[i], mapping[j]), max(mapping[i], mapping[j])) in present]
        rng.shuffle(edges1)
        edges2 = [list(e) for e in edges2]
        rng.shuffle(edges2)
        return {"N1": n1, "N2": n2, "edges1": edges1, "edges2": edges2, "reference": " ".join(map(str, mapping))}

    def prompt(self, data):
        n1, n2 = data["N1"], data["N2"]
        edges1 = edge_lines(data["edges1"], "(no edges)")
        edges2 = edge_lines(data["edges2"], "(no edges)")
        return (
            f"Graph G1 is undirected with {n1} vertices labeled 0 to {n1 - 1} and these edges:\n{edges1}\n\n"
            f"Graph G2 is undirected with {n2} vertices labeled 0 to {n2 - 1} and these edges:\n{edges2}\n\n"
            f"Find an injective mapping p from the vertices of G1 to the vertices of G2 such that for every two "
            f"vertices u, v of G1, (u, v) is an edge of G1 if and only if (p(u), p(v)) is an edge of G2.\n\n"
            f"Output Format: a single line with p(0) p(1) ... p({n1 - 1}) separated by spaces."
        )

    def score(self, data, answer):
        mapping = parse_ints(answer)
        n1 = data["N1"]
        if len(mapping) != n1 or not distinct_in_range(mapping, 0, data["N2"] - 1):
            return INVALID
        edges1 = {frozenset(e) for e in map(tuple, data["edges1"])}
        edges2 = {frozenset(e) for e in map(tuple, data["edges2"])}
        matching = sum((frozenset((u, v)) in edges1) == (frozenset((mapping[u], mapping[v])) in edges2)
                       for u, v in combinations(range(n1), 2))
        return fraction_reward(matching, n1 * (n1 - 1) // 2, beta=10)

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # one vertex too many
