"""POLPolarization (POI 2011): orient the edges of a tree to maximize the number of reachable ordered pairs."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, adjacency, bfs_order, prufer_tree
from rlve_jax.gym.environments._graphs import structure_text


def max_reachable_pairs(n: int, edges: list[list[int]]) -> int:
    """An optimal orientation makes some vertex c a hub: every branch at c points entirely towards c or
    entirely away from it. Then the pairs are sum of depths below c (ancestor-descendant pairs, c included)
    plus A * B for the branch sizes split into inward A and outward B (a subset sum). Maximize over c."""
    adjacent = adjacency(n, edges)
    best = 0
    for hub in range(n):
        parent, order = bfs_order(adjacent, hub)
        depth, size = [0] * n, [1] * n
        for v in order[1:]:
            depth[v] = depth[parent[v]] + 1
        for v in reversed(order[1:]):
            size[parent[v]] += size[v]
        reachable_sums = 1
        for c in adjacent[hub]:
            reachable_sums |= reachable_sums << size[c]
        split = max(a * (n - 1 - a) for a in range(n) if reachable_sums >> a & 1)
        best = max(best, sum(depth) + split)
    return best


class POLPolarization(ExactIntegerEnvironment):
    name = "POLPolarization"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = prufer_tree(n, rng)
        return {"N": n, "edges": edges, "reference": str(max_reachable_pairs(n, edges))}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("tree", n, data["edges"]) +
            "Give every edge a direction (turning the tree into a directed graph). Count the ordered pairs "
            "(u, v) of distinct vertices such that v can be reached from u by following directed edges. What is "
            "the maximum possible number of such pairs over all ways to direct the edges?\n\n"
            "Output Format: a single integer."
        )
