"""TreeChangeOneEdgeDiameter: swap one tree edge for another (putting the removed edge back counts) so the new
tree's diameter is smallest or largest (the direction is drawn per instance)."""

from rlve_jax.gym.environments._common import INF, adjacency, bfs_distances, parse_ints, prufer_tree
from rlve_jax.gym.environments._graphs import structure_text
from rlve_jax.gym.env import Environment, FormatError


def components_without(n: int, edges: list[list[int]], removed: int) -> list[int]:
    """Component label (0 or 1) of every vertex once edge number `removed` is deleted."""
    kept = [e for i, e in enumerate(edges) if i != removed]
    reach = bfs_distances(adjacency(n, kept), edges[removed][0])
    return [0 if d < INF else 1 for d in reach]


def tree_diameter(n: int, edges: list[list[int]]) -> int:
    adjacent = adjacency(n, edges)
    dist = bfs_distances(adjacent, 0)
    far = max(range(n), key=lambda v: dist[v])
    return int(max(bfs_distances(adjacent, far)))


def best_swap(n: int, edges: list[list[int]], maximize: bool) -> tuple[int, list[int]]:
    """Try every removed edge; the best reconnection joins the two parts at their diameter ends (maximize,
    giving d1 + d2 + 1) or at their centres (minimize, giving max(d1, d2, r1 + r2 + 1))."""
    best: tuple[int, list[int]] | None = None
    for removed in range(n - 1):
        side = components_without(n, edges, removed)
        adjacent = adjacency(n, [e for i, e in enumerate(edges) if i != removed])
        ecc = [max(d for d in bfs_distances(adjacent, v) if d < INF) for v in range(n)]
        parts = [[v for v in range(n) if side[v] == s] for s in (0, 1)]
        pick = max if maximize else min
        ends = [pick(part, key=lambda v: ecc[v]) for part in parts]
        diameters = [max(ecc[v] for v in part) for part in parts]
        value = int(max(diameters[0], diameters[1], ecc[ends[0]] + 1 + ecc[ends[1]]))
        if best is None or (value > best[0] if maximize else value < best[0]):
            best = (value, edges[removed] + ends)
    assert best is not None
    return best


class TreeChangeOneEdgeDiameter(Environment):
    name = "TreeChangeOneEdgeDiameter"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = prufer_tree(n, rng)
        maximize = rng.random() < 0.5
        optimum, swap = best_swap(n, edges, maximize)
        return {"N": n, "edges": edges, "maximize": maximize, "optimum": optimum,
                "reference": " ".join(map(str, swap))}

    def prompt(self, data):
        n = data["N"]
        goal = "maximize" if data["maximize"] else "minimize"
        return (
            structure_text("tree", n, data["edges"]) +
            "Remove exactly one edge (u1, v1) of the tree and add exactly one edge (u2, v2), possibly the removed "
            "edge itself, so that the result is again a tree on all the vertices. The diameter of a tree is the "
            f"number of edges on its longest path. Your goal is to {goal} the diameter of the resulting tree.\n\n"
            "Output Format: a single line with four integers `u1 v1 u2 v2` separated by spaces."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != 4:
            raise FormatError("expected four integers")
        u1, v1, u2, v2 = values
        n, edges = data["N"], data["edges"]
        removed = next((i for i, (a, b) in enumerate(edges) if {a, b} == {u1, v1}), None)
        if removed is None or not (0 <= u2 < n and 0 <= v2 < n):
            return -0.5
        side = components_without(n, edges, removed)
        if side[u2] == side[v2]:
            return -0.5  # the new edge would close a cycle and leave the tree disconnected
        diameter = tree_diameter(n, [e for i, e in enumerate(edges) if i != removed] + [[u2, v2]])
        ratio = diameter / data["optimum"] if data["maximize"] else data["optimum"] / diameter
        return ratio ** 5

    def perturb(self, problem, answer):
        """A self-loop as the new edge: other swaps often tie with the optimum."""
        u1, v1 = answer.split()[:2]
        return f"{u1} {v1} {u1} {u1}"
