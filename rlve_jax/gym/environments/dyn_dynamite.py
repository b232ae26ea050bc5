"""DynDynamite (held-out): light M vertices of a tree so the farthest key vertex is reached soonest."""

from rlve_jax.gym.environments._common import (
    INVALID, adjacency, bfs_order, distinct_in_range, edge_lines, minimization_reward, parse_ints, random_tree,
)
from rlve_jax.gym.env import Environment


def _centers_needed(neighbours: list[list[int]], order: list[int], parent: list[int],
                    keys: set[int], radius: int) -> list[int]:
    """Fewest centers so every key is within `radius` (greedy from the leaves; exact on trees).

    For each vertex keep the deepest uncovered key below it and the nearest center below it;
    place a center only when an uncovered key would otherwise fall out of reach.
    """
    n = len(neighbours)
    uncovered = [-1] * n  # distance to the farthest uncovered key in the subtree, -1 if none
    nearest = [n + radius + 1] * n  # distance to the nearest chosen center in the subtree
    centers = []
    for u in reversed(order):
        far = 0 if u in keys else -1
        near = n + radius + 1
        for c in neighbours[u]:
            if c == parent[u]:
                continue
            if uncovered[c] >= 0:
                far = max(far, uncovered[c] + 1)
            near = min(near, nearest[c] + 1)
        if far >= 0 and far + near <= radius:
            far = -1
        if far == radius or (u == order[0] and far >= 0):
            centers.append(u)
            far, near = -1, 0
        uncovered[u], nearest[u] = far, near
    return centers


def optimal_centers(n: int, edges: list[list[int]], keys: list[int], m: int) -> tuple[int, list[int]]:
    """(smallest achievable maximum distance, a set of exactly m centers achieving it)."""
    neighbours = adjacency(n, edges, sort=True)
    parent, order = bfs_order(neighbours, 0)
    key_set = set(keys)
    radius = 0
    while len(centers := _centers_needed(neighbours, order, parent, key_set, radius)) > m:
        radius += 1
    chosen = set(centers)
    chosen.update([v for v in range(n) if v not in chosen][:m - len(chosen)])
    return radius, sorted(chosen)


def max_key_distance(n: int, edges: list[list[int]], keys: list[int], centers: list[int]) -> int:
    """Multi-source BFS from the centers; the largest distance to a key vertex."""
    neighbours = adjacency(n, edges, sort=True)
    distance = [-1] * n
    frontier = list(centers)
    for c in centers:
        distance[c] = 0
    for u in frontier:
        for v in neighbours[u]:
            if distance[v] < 0:
                distance[v] = distance[u] + 1
                frontier.append(v)
    return max(distance[k] for k in keys)


class DynDynamite(Environment):
    name = "DynDynamite"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng, "coin")
        keys = sorted(rng.sample(range(n), rng.randint(2, n)))
        m = rng.randint(1, len(keys) - 1)
        best, centers = optimal_centers(n, edges, keys, m)
        return {"N": n, "edges": edges, "keys": keys, "M": m, "optimum": best,
                "reference": " ".join(map(str, centers))}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"You are given a tree with {n} vertices labeled 0 to {n - 1} and these edges (each of length 1):\n"
            f"{edges}\n\n"
            f"The key vertices are: {' '.join(map(str, data['keys']))}\n"
            f"Choose exactly {m} distinct vertices (the centers) so that the maximum, over all key vertices, of the "
            "distance to the nearest center is as small as possible.\n\n"
            f"Output Format: a single line with the {m} chosen vertex labels separated by spaces."
        )

    def score(self, data, answer):
        centers = parse_ints(answer)
        n = data["N"]
        if len(centers) != data["M"] or not distinct_in_range(centers, 0, n - 1):
            return INVALID
        value = max_key_distance(n, data["edges"], data["keys"], centers)
        return minimization_reward(data["optimum"], value, beta=5)

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # one center too many
