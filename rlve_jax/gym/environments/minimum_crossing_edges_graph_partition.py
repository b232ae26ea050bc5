"""Minimum_CrossingEdges_GraphPartition: split the vertices into exactly K non-empty sets cutting the fewest edges."""

from rlve_jax.gym.environments._common import adjacency_masks, minimization_reward, parse_ints
from rlve_jax.gym.environments._graphs import DENSITIES_L11, density_levels, graph_text, pair_count, random_pairs
from rlve_jax.gym.env import Environment


def best_partition(n: int, edges: list[list[int]], k: int) -> list[int]:
    """Labels of a K-partition with the most edges inside parts: DP over vertex subsets, each block
    taken as the one holding the lowest vertex left."""
    neighbours = adjacency_masks(n, edges)
    inside = [0] * (1 << n)  # edges with both ends in the subset
    for mask in range(1, 1 << n):
        v = (mask & -mask).bit_length() - 1
        rest = mask & (mask - 1)
        inside[mask] = inside[rest] + bin(neighbours[v] & rest).count("1")
    full = (1 << n) - 1
    best: list[dict[int, tuple[int, int]]] = [{0: (0, 0)}]  # best[j][mask] = (inside edges, last block)
    for j in range(1, k + 1):
        layer: dict[int, tuple[int, int]] = {}
        for rest, (value, _) in best[j - 1].items():
            free = full & ~rest
            if not free:
                continue
            low = free & -free
            others = free ^ low
            sub = others
            while True:
                block = sub | low
                mask = rest | block
                if bin(full & ~mask).count("1") >= k - j:  # leave a vertex for every remaining block
                    candidate = value + inside[block]
                    if mask not in layer or layer[mask][0] < candidate:
                        layer[mask] = (candidate, block)
                if not sub:
                    break
                sub = (sub - 1) & others
        best.append(layer)
    labels, mask = [0] * n, full
    for j in range(k, 0, -1):
        block = best[j][mask][1]
        for v in range(n):
            if block >> v & 1:
                labels[v] = j - 1
        mask ^= block
    return labels


def crossing_edges(edges: list[list[int]], labels: list[int]) -> int:
    return sum(labels[u] != labels[v] for u, v in edges)


class Minimum_CrossingEdges_GraphPartition(Environment):
    name = "Minimum_CrossingEdges_GraphPartition"

    def levels(self, difficulty):
        return density_levels(3 + difficulty, DENSITIES_L11)

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(2, n - 1)
        edges = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        labels = best_partition(n, edges, k)
        return {"N": n, "K": k, "edges": edges, "optimum": crossing_edges(edges, labels),
                "reference": " ".join(map(str, labels))}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            graph_text(n, data["edges"])
            + f"Partition the vertices into exactly {k} non-empty sets, numbered 0 to {k - 1}, so that the number "
            "of edges whose endpoints lie in different sets is as small as possible.\n\n"
            f"Output Format: a single line with {n} integers separated by spaces; the i-th is the set "
            f"(from 0 to {k - 1}) of vertex i."
        )

    def score(self, data, answer):
        labels = parse_ints(answer)
        if len(labels) != data["N"] or sorted(set(labels)) != list(range(data["K"])):
            return -0.5
        return minimization_reward(data["optimum"], crossing_edges(data["edges"], labels), beta=5)

    def perturb(self, problem, answer):
        return " ".join("0" for _ in answer.split())  # one set only: the others are empty
