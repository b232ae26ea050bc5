"""CycleCounting: the number of simple cycles (as edge sets, at least 3 vertices) of an undirected graph."""

from rlve_jax.gym.environments._common import adjacency_masks, perturb_count, score_count
from rlve_jax.gym.environments._graphs import graph_text, pair_count, random_pairs
from rlve_jax.gym.env import Environment

DENSITIES = (0.25, 0.45, 0.65, 0.85)


def count_simple_cycles(n: int, edges: list[list[int]]) -> int:
    """Bitmask DP over paths that start at their lowest vertex; each cycle is closed twice."""
    neighbours = adjacency_masks(n, edges)
    paths = {}  # (mask, end) -> number of paths from lowest(mask) through mask to end
    for v in range(n):
        paths[1 << v, v] = 1
    closed = 0
    for mask in range(1, 1 << n):
        start = (mask & -mask).bit_length() - 1
        size = bin(mask).count("1")
        ends = mask
        while ends:
            end = (ends & -ends).bit_length() - 1
            ends &= ends - 1
            number = paths.get((mask, end))
            if not number:
                continue
            if size >= 3 and neighbours[end] >> start & 1:
                closed += number
            extend = neighbours[end] & ~mask & ~((1 << (start + 1)) - 1)
            while extend:
                nxt = (extend & -extend).bit_length() - 1
                extend &= extend - 1
                key = (mask | 1 << nxt, nxt)
                paths[key] = paths.get(key, 0) + number
    return closed // 2


class CycleCounting(Environment):
    name = "CycleCounting"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty, "edge_density": rho} for rho in DENSITIES]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        return {"N": n, "edges": edges, "reference": str(count_simple_cycles(n, edges))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"])
            + "Count the number of simple cycles in the graph. A simple cycle visits at least 3 distinct "
            "vertices, never repeats a vertex or an edge, and returns to its start; two cycles are the "
            "same if they consist of the same set of edges (regardless of starting vertex or direction).\n\n"
            "Output Format: a single integer, the number of simple cycles."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))

    perturb = perturb_count
