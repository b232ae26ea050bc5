"""MaxXorPath: the largest XOR of edge weights over walks from vertex 0 to vertex N-1."""

from environments._grapha_util import DENSITIES_01_09, edge_lines, grow_n, pair_count, random_connected_graph
from rlve_jax.env import Environment, parse_int


def max_xor_walk(n: int, edges: list[list[int]]) -> int:
    """A walk's XOR is a tree-path XOR combined with any set of cycle XORs: reduce with a linear basis."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
        adjacent[v].append((u, w))
    value, stack = [None] * n, [0]
    value[0] = 0
    while stack:
        v = stack.pop()
        for w, weight in adjacent[v]:
            if value[w] is None:
                value[w] = value[v] ^ weight
                stack.append(w)
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


class MaxXorPath(Environment):
    name = "MaxXorPath"

    def levels(self, difficulty):
        n = grow_n(4, difficulty)
        low_bits = (2 * n - 1).bit_length()  # ceil(log2(2N))
        return [{"N": n, "edge_density": rho, "bits": bits} for rho in DENSITIES_01_09
                if int(rho * pair_count(n)) >= n for bits in range(low_bits, low_bits + 5)]

    def sample(self, params, rng):
        """Weights are XORs of a few random basis vectors, so cycles interact and the answer is not trivial."""
        n, bits = params["N"], params["bits"]
        basis = [rng.randint(1, 2 ** bits - 1) for _ in range(rng.randint(1, bits))]
        edges = []
        for u, v in random_connected_graph(rng, n, int(params["edge_density"] * pair_count(n))):
            weight = 0
            for b in basis:
                if rng.random() < 0.5:
                    weight ^= b
            edges.append([u, v, weight])
        return {"N": n, "edges": edges, "reference": str(max_xor_walk(n, edges))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given an undirected graph with {n} vertices, labeled from 0 to {n - 1}. "
            "The graph contains the following undirected edges, each written as (u, v, w) for an edge "
            "between u and v with weight w:\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"Find a walk from vertex 0 to vertex {n - 1} (vertices and edges may be repeated) that maximizes "
            "the XOR of the weights of the edges it traverses, where an edge traversed several times "
            "contributes its weight each time. What is this maximum XOR?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return float(parse_int(answer) == int(data["reference"]))
