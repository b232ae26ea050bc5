"""MinimumSpanningTreeCounting: the number of minimum spanning trees of a weighted graph, modulo MOD."""

from rlve_jax.gym.environments._common import DisjointSets, grow_1p1, parse_int
from rlve_jax.gym.environments._graphs import (
    RATIOS_1_5, WEIGHTED_EDGES, graph_text, random_connected_graph, ratio_levels,
)
from rlve_jax.gym.env import Environment


def determinant(matrix: list[list[int]]) -> int:
    """Exact integer determinant (Bareiss fraction-free elimination)."""
    a = [row[:] for row in matrix]
    size, sign, previous = len(a), 1, 1
    for k in range(size):
        pivot = next((r for r in range(k, size) if a[r][k]), None)
        if pivot is None:
            return 0
        if pivot != k:
            a[k], a[pivot] = a[pivot], a[k]
            sign = -sign
        for i in range(k + 1, size):
            for j in range(k + 1, size):
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) // previous
        previous = a[k][k]
    return sign * previous if size else 1


def count_minimum_spanning_trees(n: int, edges: list[list[int]]) -> int:
    """Kruskal by weight classes: within each class, the ways to join the components built so far
    multiply, each counted with the matrix-tree theorem on the contracted multigraph."""
    components = DisjointSets(n)
    total = 1
    for weight in sorted({w for _, _, w in edges}):
        links = [(components.find(u), components.find(v)) for u, v, w in edges if w == weight]
        links = [(a, b) for a, b in links if a != b]
        joined = DisjointSets(n)  # how this weight class links the current components
        for a, b in links:
            joined.union(a, b)
        groups: dict[int, list[int]] = {}
        for c in sorted({c for link in links for c in link}):
            groups.setdefault(joined.find(c), []).append(c)
        for members in groups.values():
            index = {c: i for i, c in enumerate(members)}
            laplacian = [[0] * len(members) for _ in members]
            for a, b in links:
                if a in index and b in index:
                    i, j = index[a], index[b]
                    laplacian[i][i] += 1
                    laplacian[j][j] += 1
                    laplacian[i][j] -= 1
                    laplacian[j][i] -= 1
            total *= determinant([row[1:] for row in laplacian[1:]])
        for a, b in links:
            components.union(a, b)
    return total


class MinimumSpanningTreeCounting(Environment):
    name = "MinimumSpanningTreeCounting"

    def levels(self, difficulty):
        return ratio_levels(grow_1p1(4, difficulty), RATIOS_1_5)

    def sample(self, params, rng):
        """Few distinct weights (about #edges/10, at least two) create ties, hence many minimum spanning trees."""
        n = params["N"]
        pairs = random_connected_graph(n, int(params["edge_ratio"] * n), rng)
        top = max(1, int(params["edge_ratio"] * n / 10)) + 1
        edges = [[u, v, rng.randint(1, top)] for u, v in pairs]
        mod = rng.randint(2, 10 ** 4)
        return {"N": n, "edges": edges, "MOD": mod, "reference": str(count_minimum_spanning_trees(n, edges) % mod)}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], edge_form=WEIGHTED_EDGES)
            + "A minimum spanning tree is a set of edges that connects all vertices without a cycle and has the "
            "smallest possible total weight. Count the number of distinct minimum spanning trees (two trees "
            f"are distinct if their edge sets differ), and give the count modulo {data['MOD']}.\n\n"
            f"Output Format: a single integer in [0, {data['MOD']})."
        )

    def score(self, data, answer):
        value = parse_int(answer)
        if not 0 <= value < data["MOD"]:
            return -0.5
        return float(value == int(data["reference"]))
