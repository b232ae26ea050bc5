"""Tree_DistanceEqualTriad_Counting (POI 2014 Hotels): triples of tree vertices at equal pairwise distances."""

from rlve_jax.gym.environments._common import CountingEnvironment, adjacency, prufer_tree
from rlve_jax.gym.environments._graphs import structure_text


def equidistant_triples(n: int, edges: list[list[int]]) -> int:
    """Three vertices at pairwise distance 2d have a unique centre at distance d from each, in three different
    branches of it; so count, per centre and depth, the triples of branches (elementary symmetric sum e3)."""
    adjacent = adjacency(n, edges)
    total = 0
    for centre in range(n):
        by_depth: dict[int, list[int]] = {}  # depth -> vertex counts per branch
        for branch in adjacent[centre]:
            counts: dict[int, int] = {}
            frontier, previous, depth = [branch], {centre, branch}, 1
            while frontier:
                counts[depth] = len(frontier)
                frontier = [w for v in frontier for w in adjacent[v] if w not in previous]
                previous.update(frontier)
                depth += 1
            for d, count in counts.items():
                by_depth.setdefault(d, []).append(count)
        for counts in by_depth.values():
            e1 = e2 = e3 = 0
            for c in counts:
                e3 += e2 * c
                e2 += e1 * c
                e1 += c
            total += e3
    return total


class Tree_DistanceEqualTriad_Counting(CountingEnvironment):
    name = "Tree_DistanceEqualTriad_Counting"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = prufer_tree(n, rng)
        return {"N": n, "edges": edges, "gold": equidistant_triples(n, edges)}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("tree", n, data["edges"]) +
            "The distance between two vertices is the number of edges on the path between them. How many "
            "unordered triples {a, b, c} of distinct vertices have dist(a, b) = dist(b, c) = dist(a, c)?\n\n"
            "Output Format: a single integer."
        )
