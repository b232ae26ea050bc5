"""MaxXorPath: the largest XOR of edge weights over walks from vertex 0 to vertex N-1."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1
from rlve_jax.gym.environments._graphs import (
    DENSITIES_01_09, WEIGHTED_EDGES, graph_text, pair_count, random_connected_graph, xor_potentials,
)


def max_xor_walk(n: int, edges: list[list[int]]) -> int:
    """A walk's XOR is a tree-path XOR combined with any set of cycle XORs: reduce with a linear basis."""
    value = xor_potentials(n, edges)  # the graph is connected and vertex 0 is the root
    basis: list[int] = []  # kept with distinct leading bits, largest first
    for u, v, w in edges:
        x = value[u] ^ value[v] ^ w
        for b in basis:
            x = min(x, x ^ b)
        if x:
            basis.append(x)
            basis.sort(reverse=True)
    best = value[n - 1]
    for b in basis:
        best = max(best, best ^ b)
    return best


class MaxXorPath(ExactIntegerEnvironment):
    name = "MaxXorPath"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        low_bits = (2 * n - 1).bit_length()  # ceil(log2(2N))
        return [{"N": n, "edge_density": rho, "bits": bits} for rho in DENSITIES_01_09
                if int(rho * pair_count(n)) >= n for bits in range(low_bits, low_bits + 5)]

    def sample(self, params, rng):
        """Weights are XORs of a few random basis vectors, so cycles interact and the answer is not trivial."""
        n, bits = params["N"], params["bits"]
        basis = [rng.randint(1, 2 ** bits - 1) for _ in range(rng.randint(1, bits))]
        edges = []
        for u, v in random_connected_graph(n, int(params["edge_density"] * pair_count(n)), rng):
            weight = 0
            for b in basis:
                if rng.random() < 0.5:
                    weight ^= b
            edges.append([u, v, weight])
        return {"N": n, "edges": edges, "reference": str(max_xor_walk(n, edges))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], edge_form=WEIGHTED_EDGES)
            + f"Find a walk from vertex 0 to vertex {n - 1} (vertices and edges may be repeated) that maximizes "
            "the XOR of the weights of the edges it traverses, where an edge traversed several times "
            "contributes its weight each time. What is this maximum XOR?\n\n"
            "Output Format: a single integer."
        )
