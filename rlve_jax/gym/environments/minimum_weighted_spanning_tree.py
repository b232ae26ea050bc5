"""MinimumWeightedSpanningTree: a spanning tree and a root minimizing the sum of edge weight times depth."""

from rlve_jax.gym.environments._common import INF, adjacency, bfs_order, parse_ints
from rlve_jax.gym.environments._graphs import (DENSITIES_01_10, density_levels, is_spanning_tree, structure_text,
                                  weighted_density_graph)
from rlve_jax.gym.env import Environment, FormatError


def min_depth_weighted_tree(n: int, edges: list[list[int]]) -> tuple[int, int, list[list[int]]]:
    """(optimum, root, tree edges) by a DP over layers: `mask` holds the vertices of depth <= k and a new
    layer S at depth k+1 hangs each vertex on its cheapest edge into `mask`. Charging depth k+1 to a vertex
    whose parent is shallower only overestimates, and the true layering of an optimal tree is reachable,
    so the minimum is exact."""
    weight = [[INF] * n for _ in range(n)]
    for u, v, w in edges:
        weight[u][v] = weight[v][u] = w
    full = (1 << n) - 1
    link = [[INF] * n for _ in range(1 << n)]  # cheapest edge from v into the mask
    for mask in range(1, 1 << n):
        low = (mask & -mask).bit_length() - 1
        rest = link[mask & (mask - 1)]
        link[mask] = [min(rest[v], weight[low][v]) for v in range(n)]
    # states[mask]: {depth of the last layer: cost}, keeping only states not dominated by a shallower,
    # cheaper one (every later layer costs more the deeper it sits)
    states: list[dict[int, float]] = [{} for _ in range(1 << n)]
    came_from: dict[tuple[int, int], tuple[int, int]] = {}
    for root in range(n):
        states[1 << root][0] = 0
    for mask in range(1, full):  # a layer only adds vertices, so masks grow numerically
        frontier = pareto(states[mask])
        if not frontier:
            continue
        row, complement = link[mask], full ^ mask
        layer_cost = {0: 0.0}
        sub = 0
        while True:  # submasks of the complement in increasing order: sub without its lowest bit comes first
            sub = (sub - complement) & complement
            if not sub:
                break
            low = (sub & -sub).bit_length() - 1
            cost = layer_cost[sub & (sub - 1)] + row[low]
            layer_cost[sub] = cost
            if cost == INF:
                continue
            target = states[mask | sub]
            for depth, total in frontier:
                value = total + (depth + 1) * cost
                if value < target.get(depth + 1, INF):
                    target[depth + 1] = value
                    came_from[mask | sub, depth + 1] = (mask, sub)
    optimum, depth = min((cost, depth) for depth, cost in states[full].items())
    mask, tree = full, []
    while depth > 0:
        previous, sub = came_from[mask, depth]
        for v in range(n):
            if sub >> v & 1:
                parent = min((u for u in range(n) if previous >> u & 1), key=lambda u: weight[u][v])
                tree.append([parent, v])
        mask, depth = previous, depth - 1
    return int(optimum), mask.bit_length() - 1, tree


def pareto(by_depth: dict[int, float]) -> list[tuple[int, float]]:
    """(depth, cost) states with no shallower state at most as expensive."""
    kept: list[tuple[int, float]] = []
    for depth, cost in sorted(by_depth.items()):
        if not kept or cost < kept[-1][1]:
            kept.append((depth, cost))
    return kept


def depth_weighted_cost(n: int, edges: list[list[int]], root: int, tree: list[list[int]]) -> int:
    """Sum over tree edges of weight times the depth of the endpoint farther from the root."""
    weight = {(min(u, v), max(u, v)): w for u, v, w in edges}
    parent, order = bfs_order(adjacency(n, tree), root)
    depth = [0] * n
    total = 0
    for v in order[1:]:
        depth[v] = depth[parent[v]] + 1
        total += weight[min(v, parent[v]), max(v, parent[v])] * depth[v]
    return total


class MinimumWeightedSpanningTree(Environment):
    name = "MinimumWeightedSpanningTree"

    def levels(self, difficulty):
        n = 3 + difficulty
        return density_levels(n, DENSITIES_01_10, min_edges=n)  # more than N-1 edges

    def sample(self, params, rng):
        n = params["N"]
        edges = weighted_density_graph(params, 0, n, rng)
        optimum, root, tree = min_depth_weighted_tree(n, edges)
        return {"N": n, "edges": edges, "optimum": optimum,
                "reference": " ".join([str(root)] + [f"{u} {v}" for u, v in tree])}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("undirected graph", n, data["edges"], weight="weight") +
            f"Choose a spanning tree of the graph (exactly {n - 1} of the edges above, connecting all vertices) and "
            "a root vertex. The depth of a vertex is the number of edges on its tree path to the root (the root "
            "has depth 0). The cost of an edge (u, v, w) of the tree is w times the depth of whichever of u and v "
            "is farther from the root. Minimize the total cost of the tree.\n\n"
            "Output Format: a single line `r u1 v1 u2 v2 ...`: the root r followed by the endpoints of each tree "
            "edge, all separated by spaces."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) % 2 == 0:
            raise FormatError("expected a root and pairs of endpoints")
        n, root, pairs = data["N"], values[0], list(zip(values[1::2], values[2::2]))
        present = {(min(u, v), max(u, v)) for u, v, _ in data["edges"]}
        if not 0 <= root < n or any((min(u, v), max(u, v)) not in present for u, v in pairs):
            return -0.5
        if not is_spanning_tree(n, pairs):
            return -0.5
        cost = depth_weighted_cost(n, data["edges"], root, [list(p) for p in pairs])
        return 1.0 if cost == 0 else (data["optimum"] / cost) ** 5

    def perturb(self, problem, answer):
        """An out-of-range root: zero-weight edges make other trees just as cheap as the reference."""
        return " ".join([str(problem.data["N"])] + answer.split()[1:])
