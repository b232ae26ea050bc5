"""EvenDegreeGraphPartitioning (held-out): two groups where every vertex has an even number of same-group neighbours."""

from rlve_jax.gym.environments._common import INVALID, edge_lines, fraction_reward, parse_ints
from rlve_jax.gym.env import Environment


class EvenDegreeGraphPartitioning(Environment):
    name = "EvenDegreeGraphPartitioning"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        groups = [rng.randint(1, 2) for _ in range(n)]
        edges = {(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.5}
        for group in (1, 2):  # make every same-group degree even by toggling edges between odd vertices
            odd = [v for v in range(n) if groups[v] == group
                   and sum(((min(v, w), max(v, w)) in edges) for w in range(n) if w != v and groups[w] == group) % 2]
            for u, v in zip(odd[::2], odd[1::2]):  # an even number of odd vertices (handshake lemma)
                edges ^= {(u, v)}
        edge_list = [list(e) for e in sorted(edges)]
        rng.shuffle(edge_list)
        return {"N": n, "edges": edge_list, "reference": " ".join(map(str, groups))}

    def prompt(self, data):
        n = data["N"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"You are given an undirected graph with {n} vertices labeled 0 to {n - 1} and these edges:\n{edges}\n\n"
            "Assign every vertex to group 1 or group 2 so that every vertex has an even number (possibly zero) of "
            "neighbours in its own group.\n\n"
            f"Output Format: a single line with {n} numbers separated by spaces, each 1 or 2; the i-th number is "
            "the group of vertex i."
        )

    def score(self, data, answer):
        groups = parse_ints(answer)
        n = data["N"]
        if len(groups) != n or any(g not in (1, 2) for g in groups):
            return INVALID
        same = [0] * n
        for u, v in data["edges"]:
            if groups[u] == groups[v]:
                same[u] += 1
                same[v] += 1
        return fraction_reward(sum(d % 2 == 0 for d in same), n, beta=10)

    def perturb(self, problem, answer):
        return answer + " 1"  # one label too many
