"""MinCostTreeCoverage: choose weighted tree vertices so that every required vertex is within distance
D of a chosen one, at minimum total weight."""

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, adjacency, bfs_order, grow_1p1, minimization_reward, parse_distinct_indices,
    random_tree,
)
from rlve_jax.gym.environments._graphs import all_pairs_distances


def least_cover_weight(n: int, edges: list[list[int]], required: list[int], reach: int, weights: list[int]) -> int:
    """Tree DP (as in JLOI 2016 "Scout guards"), rooted at 0. covered[u][j]: least weight covering every required
    vertex of u's subtree while some chosen vertex also reaches j levels beyond u; partial[u][j]: least weight
    covering the required vertices at depth >= j below u (shallower ones are left to a guard outside)."""
    neighbours = adjacency(n, edges)
    parent, order = bfs_order(neighbours, 0)
    is_required = [False] * n
    for v in required:
        is_required[v] = True
    unreachable = sum(weights) + 1
    covered: list[list[int]] = [[] for _ in range(n)]
    partial: list[list[int]] = [[] for _ in range(n)]
    for u in reversed(order):
        full = [weights[u] if is_required[u] else 0] + [weights[u]] * reach + [unreachable]
        part = [full[0]] + [0] * (reach + 1)
        for v in neighbours[u]:
            if v == parent[u]:
                continue
            for j in range(reach, -1, -1):  # u's side reaches into v's subtree, or v's guard reaches u's side
                full[j] = min(full[j] + partial[v][j], part[j + 1] + covered[v][j + 1])
            for j in range(reach - 1, -1, -1):
                full[j] = min(full[j], full[j + 1])
            part[0] = full[0]
            for j in range(1, reach + 2):
                part[j] += partial[v][j - 1]
            for j in range(1, reach + 2):
                part[j] = min(part[j], part[j - 1])
        covered[u], partial[u] = full, part
    return covered[0][0]


def cheapest_cover(n: int, edges: list[list[int]], required: list[int], reach: int, weights: list[int]) -> list[int]:
    """An optimal set by self-reduction: forbid each vertex in turn (a prohibitive weight) unless that raises
    the optimum, in which case it belongs to every remaining optimum and is taken (weight 0 from then on)."""
    weights = list(weights)
    prohibitive = sum(weights) + 1
    remaining = least_cover_weight(n, edges, required, reach, weights)
    chosen = []
    for v in range(n):
        original, weights[v] = weights[v], prohibitive
        if least_cover_weight(n, edges, required, reach, weights) != remaining:
            weights[v] = 0
            remaining -= original
            chosen.append(v)
    return chosen


class MinCostTreeCoverage(DropLastTokenPerturbation):
    name = "MinCostTreeCoverage"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng, "shuffle")
        required = [v for v in range(n) if rng.random() < 0.5] or [rng.randrange(n)]
        reach = rng.randint(1, max(1, max(map(max, all_pairs_distances(n, edges))) // 2))
        weights = [rng.randint(1, n) for _ in range(n)]
        chosen = cheapest_cover(n, edges, required, reach, weights)
        return {"N": n, "edges": edges, "required": required, "D": reach, "W": weights,
                "optimum": sum(weights[v] for v in chosen), "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        n, weights = data["N"], data["W"]
        return (
            f"You are given a tree with {n} vertices numbered 0 to {n - 1}; its edges are:\n"
            + "\n".join(f"{u} - {v}" for u, v in data["edges"])
            + "\nVertex weights: " + " ".join(f"W[{i}]={w}" for i, w in enumerate(weights))
            + f"\nThe distance between two vertices is the number of edges on the path between them. Choose a set "
            f"of distinct vertices such that every one of the required vertices {' '.join(map(str, data['required']))} "
            f"is at distance at most {data['D']} from some chosen vertex. Minimize the total weight of the chosen "
            "vertices.\n\n"
            "Output Format: a single line with the chosen vertices separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_distinct_indices(answer, data["N"])
        if chosen is None:
            return -0.5
        distances = all_pairs_distances(data["N"], data["edges"])
        if any(all(distances[v][r] > data["D"] for v in chosen) for r in data["required"]):
            return -0.2
        return minimization_reward(data["optimum"], sum(data["W"][v] for v in chosen), beta=3)
