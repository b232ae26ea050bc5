"""MinCostTreeCoverage: choose weighted tree vertices so that every required vertex is within distance
D of a chosen one, at minimum total weight."""

from environments._optima_util import (DropLastTokenPerturbation, distinct_indices, minimize_reward,
                                       random_parent_tree, tree_distances)
from rlve_jax.env import grow


def cheapest_cover(distances: list[list[int]], required: list[int], reach: int, weights: list[int]) -> list[int]:
    """Exact DP over subsets of the required vertices: f[m] = least weight whose coverage is exactly m.
    A vertex only adds coverage, so increasing masks are a topological order."""
    n = len(weights)
    covers = [sum(1 << k for k, r in enumerate(required) if distances[v][r] <= reach) for v in range(n)]
    full = (1 << len(required)) - 1
    inf = float("inf")
    least, parent = [0] + [inf] * full, [(-1, -1)] * (full + 1)
    for mask in range(full + 1):
        if least[mask] == inf:
            continue
        for v in range(n):
            wider = mask | covers[v]
            if wider != mask and least[mask] + weights[v] < least[wider]:
                least[wider], parent[wider] = least[mask] + weights[v], (mask, v)
    chosen, mask = [], full
    while mask:
        mask, v = parent[mask]
        chosen.append(v)
    return sorted(chosen)


class MinCostTreeCoverage(DropLastTokenPerturbation):
    name = "MinCostTreeCoverage"

    def levels(self, difficulty):
        return [{"N": grow(3, lambda x: int(1.1 * x + 1), difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_parent_tree(n, rng)
        distances = tree_distances(n, edges)
        required = [v for v in range(n) if rng.random() < 0.5] or [rng.randrange(n)]
        reach = rng.randint(1, max(1, max(map(max, distances)) // 2))
        weights = [rng.randint(1, n) for _ in range(n)]
        chosen = cheapest_cover(distances, required, reach, weights)
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
        chosen = distinct_indices(answer, data["N"])
        if chosen is None:
            return -0.5
        distances = tree_distances(data["N"], data["edges"])
        if any(all(distances[v][r] > data["D"] for v in chosen) for r in data["required"]):
            return -0.2
        return minimize_reward(data["optimum"], sum(data["W"][v] for v in chosen), beta=3)
