"""MostComponentTreeRemovingTwoPaths (held-out): delete two edge-disjoint paths from a tree, maximize components."""

from rlve_jax.gym.environments._common import (
    ExactIntegerEnvironment, adjacency, bfs_order, edge_lines, grow_1p1, random_tree,
)


def most_components(n: int, edges: list[list[int]]) -> int:
    """Exhaustive over pairs of paths (a path may be a single vertex): components = vertices - edges left."""
    neighbours = adjacency(n, edges, sort=True)
    edge_index = {}
    for i, (u, v) in enumerate(edges):
        edge_index[u, v] = edge_index[v, u] = i
    paths = []  # (vertex mask, edge mask) for every path u..v, u <= v
    for start in range(n):
        parent, order = bfs_order(neighbours, start)
        masks = {start: (1 << start, 0)}
        for u in order[1:]:
            vertex_mask, edge_mask = masks[parent[u]]
            masks[u] = (vertex_mask | 1 << u, edge_mask | 1 << edge_index[u, parent[u]])
        paths.extend(masks[end] for end in range(start, n))
    endpoint_masks = [(1 << u) | (1 << v) for u, v in edges]
    best = 0
    for i, (vertices_a, edges_a) in enumerate(paths):
        for vertices_b, edges_b in paths[i:]:
            if edges_a & edges_b:
                continue
            removed = vertices_a | vertices_b
            remaining_edges = sum(1 for mask in endpoint_masks if not mask & removed)
            best = max(best, n - bin(removed).count("1") - remaining_edges)
    return best


class MostComponentTreeRemovingTwoPaths(ExactIntegerEnvironment):
    name = "MostComponentTreeRemovingTwoPaths"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng, "coin")
        return {"N": n, "edges": edges, "reference": str(most_components(n, edges))}

    def prompt(self, data):
        n = data["N"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"You are given a tree with {n} vertices labeled 0 to {n - 1} and these edges:\n{edges}\n\n"
            "Choose two paths in the tree that share no edge (they may share vertices; a path may consist of a "
            "single vertex). Remove every vertex lying on either path, together with all edges touching those "
            "vertices. What is the maximum possible number of connected components among the remaining vertices?\n\n"
            "Output Format: a single integer."
        )
