"""Patrol (APIO 2010): add K new roads to a tree so the shortest patrol covering all roads is shortest."""

from rlve_jax.gym.environments._common import (
    ExactIntegerEnvironment, adjacency, bfs_distances, bfs_order, edge_lines, grow_1p1, prufer_tree,
)


def max_path_sum(adjacent: list[list[int]], weight: dict[tuple[int, int], int]) -> int:
    """Heaviest path (possibly a single vertex, weight 0) in a tree with edge weights."""
    parent, order = bfs_order(adjacent, 0)
    down = [0] * len(adjacent)  # heaviest downward path from each vertex
    best = 0
    for v in reversed(order):
        top = [0, 0]
        for c in adjacent[v]:
            if c != parent[v]:
                top = sorted(top + [down[c] + weight[min(v, c), max(v, c)]])[-2:]
        down[v] = top[1]
        best = max(best, top[0] + top[1])
    return best


def shortest_patrol(n: int, edges: list[list[int]], k: int) -> int:
    """Each new road (length 1, traversed once) spares the tree path it spans a second traversal. The first
    road spans a diameter; for the second, edges already spared count -1, since sparing one twice undoes it."""
    adjacent = adjacency(n, edges)
    far = max(range(n), key=lambda v: (bfs_distances(adjacent, 0)[v], -v))
    dist = bfs_distances(adjacent, far)
    other = max(range(n), key=lambda v: (dist[v], -v))
    diameter = int(dist[other])
    total = 2 * (n - 1) - diameter + 1
    if k == 2:
        parent, _ = bfs_order(adjacent, far)
        weight = {(min(u, v), max(u, v)): 1 for u, v in edges}
        v = other
        while v != far:
            weight[min(v, parent[v]), max(v, parent[v])] = -1
            v = parent[v]
        total -= max_path_sum(adjacent, weight) - 1
    return total


class Patrol(ExactIntegerEnvironment):
    name = "Patrol"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u + 1, v + 1] for u, v in prufer_tree(n, rng)]
        k = rng.randint(1, 2)
        return {"N": n, "K": k, "edges": edges,
                "reference": str(shortest_patrol(n, [[u - 1, v - 1] for u, v in edges], k))}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        roads = "one new road" if k == 1 else "two new roads"
        return (
            f"There are {n} villages, numbered 1 to {n}, connected by {n - 1} roads of length 1 that form a tree:\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"A patrol car starts at village 1, must drive along every road at least once, and finally returns "
            f"to village 1. You must build exactly {roads}, each of length 1; a new road may connect any two "
            "villages (it may even start and end at the same village). The patrol must drive along each new "
            "road exactly once. Choosing the new roads optimally, what is the minimum total distance the patrol "
            "car has to drive?\n\n"
            "Output Format: a single integer."
        )
