"""ShortestPathCountConstruction (CF 388B): a simple graph with exactly K shortest paths from vertex 1 to 2."""

import math
from collections import deque

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p5, parse_int, parse_lines, ratio_reward

CAPPED_FROM = 12  # K >= 12 comes with a vertex-count cap


def vertex_cap(k: int) -> int:
    """Answers must use fewer vertices than this when K >= 12."""
    return min(2 * (3 * k.bit_length() + 2), k + 2)


def layer_shape(k: int) -> tuple[int, int]:
    """Sizes of the two middle layers of the two-layer construction: about sqrt(K) each."""
    rows = math.isqrt(k - 1) + 1 if k > 1 else 1
    return rows, -(-k // rows)


def two_layer_graph(k: int) -> list[list[int]]:
    """1 - A - B - 2 with |A| * |B| >= K and exactly K edges between the layers: one path per A-B edge."""
    rows, columns = layer_shape(k)
    a_layer = list(range(2, 2 + rows))
    b_layer = list(range(2 + rows, 2 + rows + columns))
    edges = [[0, a] for a in a_layer] + [[b, 1] for b in b_layer]
    edges += [[a_layer[i // columns], b_layer[i % columns]] for i in range(k)]
    return edges


def binary_graph(k: int) -> list[list[int]]:
    """Layers of two vertices (2^(j-1) shortest paths reach each vertex of layer j) and a spine into vertex 2;
    bit i of K hangs one vertex of layer i+1 on the spine at the distance that keeps all paths equally long."""
    bits = k.bit_length()
    layers = [[0]]
    next_id = 2
    for j in range(1, bits + 1):
        width = 2 if j < bits else 1
        layers.append(list(range(next_id, next_id + width)))
        next_id += width
    edges = [[u, v] for j in range(1, bits + 1) for u in layers[j - 1] for v in layers[j]]
    lowest = (k & -k).bit_length()  # the spine stops at the lowest set bit's layer
    spine = list(range(next_id, next_id + bits + 1 - lowest))  # spine[s] is s + 1 steps from vertex 2
    edges.append([spine[0], 1])
    edges += [[spine[s], spine[s + 1]] for s in range(len(spine) - 1)]
    for i in range(bits):
        if k >> i & 1:
            edges.append([layers[i + 1][0], spine[bits - 1 - i]])
    return edges


def construction(k: int) -> list[list[int]]:
    """The construction with fewer vertices (it always fits under the cap)."""
    two_layer_size = 2 + sum(layer_shape(k))
    binary_size = 2 + 2 * k.bit_length() - 1 + k.bit_length() + 1 - (k & -k).bit_length()
    return two_layer_graph(k) if two_layer_size <= binary_size else binary_graph(k)


def shortest_path_count(n: int, adjacent: list[list[int]]) -> int:
    """Number of shortest paths from vertex index 0 to 1 (0 if unreachable)."""
    dist, ways = [-1] * n, [0] * n
    dist[0], ways[0] = 0, 1
    queue = deque([0])
    while queue:
        u = queue.popleft()
        for v in adjacent[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
            if dist[v] == dist[u] + 1:
                ways[v] += ways[u]
    return ways[1]


class ShortestPathCountConstruction(Environment):
    name = "ShortestPathCountConstruction"

    def levels(self, difficulty):
        return [{"MAX_K": grow_1p5(12, difficulty)}]

    def sample(self, params, rng):
        k = rng.randint(3, params["MAX_K"])
        edges = construction(k)
        n = 1 + max(max(e) for e in edges)
        matrix = [["N"] * n for _ in range(n)]
        for u, v in edges:
            matrix[u][v] = matrix[v][u] = "Y"
        return {"K": k, "cap": vertex_cap(k) if k >= CAPPED_FROM else None,
                "reference": "\n".join([str(n)] + ["".join(row) for row in matrix])}

    def prompt(self, data):
        k, cap = data["K"], data["cap"]
        limit = f" The graph must have at most {cap - 1} vertices." if cap is not None else ""
        return (
            f"Construct a simple undirected graph (no self-loops, no multiple edges) with N >= 2 vertices, "
            f"numbered 1 to N, in which the number of distinct shortest paths from vertex 1 to vertex 2 is "
            f"exactly {k}.{limit}\n\n"
            "Output Format: the first line contains N. Then output N lines, each with N characters 'Y' or 'N': "
            "the j-th character of line i is 'Y' if vertices i and j are joined by an edge and 'N' otherwise. The "
            "matrix must be symmetric, with 'N' on the diagonal."
        )

    def score(self, data, answer):
        lines = parse_lines(answer)
        if not lines:
            raise FormatError("empty answer")
        n = parse_int(lines[0])
        rows = ["".join(line.split()) for line in lines[1:]]
        if n < 2 or len(rows) != n or any(len(row) != n or set(row) - {"Y", "N"} for row in rows):
            raise FormatError("not an N x N matrix of Y/N")
        if data["cap"] is not None and n >= data["cap"]:
            return -0.5
        if any(rows[i][i] == "Y" for i in range(n)) or any(rows[i][j] != rows[j][i]
                                                           for i in range(n) for j in range(i)):
            return -0.5  # a self-loop or a one-way edge is not a simple undirected graph
        adjacent = [[j for j, c in enumerate(row) if c == "Y"] for row in rows]
        return ratio_reward(shortest_path_count(n, adjacent), data["K"], beta=10)
