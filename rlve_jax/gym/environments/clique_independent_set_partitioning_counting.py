"""Clique_IndependentSet_Partitioning_Counting (held-out): count splits into a clique and an independent set."""

from rlve_jax.gym.environments._common import edge_lines, perturb_count, score_count
from rlve_jax.gym.env import Environment


def count_split_partitions(n: int, edges: list[list[int]], clique: list[int]) -> int:
    """Count (S, T) with S a non-empty clique, T = V - S a non-empty independent set.

    Every such S differs from the planted clique by at most one vertex removed and one added
    (a clique meets an independent set in at most one vertex), so O(n^2) candidates suffice.
    """
    adjacent = [[False] * n for _ in range(n)]
    for u, v in edges:
        adjacent[u][v] = adjacent[v][u] = True
    base = frozenset(clique)
    candidates = {base}
    for v in range(n):
        candidates.add(base ^ {v})
        for w in range(n):
            if v in base and w not in base:
                candidates.add(base - {v} | {w})
    count = 0
    for s in candidates:
        if not 0 < len(s) < n:
            continue
        t = [v for v in range(n) if v not in s]
        members = sorted(s)
        is_clique = all(adjacent[a][b] for i, a in enumerate(members) for b in members[i + 1:])
        is_independent = not any(adjacent[a][b] for i, a in enumerate(t) for b in t[i + 1:])
        count += is_clique and is_independent
    return count


class Clique_IndependentSet_Partitioning_Counting(Environment):
    name = "Clique_IndependentSet_Partitioning_Counting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        clique_size = rng.randint(1, n - 1)
        clique = sorted(rng.sample(range(n), clique_size))
        in_clique = set(clique)
        edges = []
        for u in range(n):
            for v in range(u + 1, n):
                if u in in_clique and v in in_clique:
                    edges.append([u, v])
                elif (u in in_clique) != (v in in_clique) and rng.random() < 0.5:
                    edges.append([u, v])
        rng.shuffle(edges)
        answer = count_split_partitions(n, edges, clique)
        return {"N": n, "edges": edges, "reference": str(answer)}

    def prompt(self, data):
        n = data["N"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"You are given an undirected graph with {n} vertices labeled 0 to {n - 1} and the following edges:\n"
            f"{edges}\n\n"
            "Count the ways to partition the vertex set into two non-empty sets S and T such that S is a clique "
            "(every two vertices of S are adjacent) and T is an independent set (no two vertices of T are adjacent). "
            "The pair (S, T) is ordered: S is always the clique.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10)
