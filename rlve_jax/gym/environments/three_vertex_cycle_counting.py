"""ThreeVertexCycleCounting: the number of triangles in an undirected graph."""

from rlve_jax.gym.environments._common import CountingEnvironment, grow_1p1
from rlve_jax.gym.environments._graphs import RATIOS_1_3, random_pairs, ratio_levels, structure_text

def triangles(n: int, edges: list[list[int]]) -> int:
    masks = [0] * n
    for u, v in edges:
        masks[u] |= 1 << v
        masks[v] |= 1 << u
    return sum(bin(masks[u] & masks[v]).count("1") for u, v in edges) // 3


class ThreeVertexCycleCounting(CountingEnvironment):
    name = "ThreeVertexCycleCounting"

    def levels(self, difficulty):
        n = grow_1p1(5, difficulty)
        return ratio_levels(n, RATIOS_1_3)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(n, int(params["edge_ratio"] * n), rng, flip=True)
        return {"N": n, "edges": edges, "gold": triangles(n, edges)}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("undirected graph", n, data["edges"]) +
            "How many triangles does the graph contain, i.e. unordered triples of distinct vertices that are "
            "pairwise joined by edges?\n\n"
            "Output Format: a single integer."
        )
