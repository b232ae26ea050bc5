"""SumSpanningTreeGCD: the sum over all spanning trees of the gcd of their edge weights, modulo a prime."""

from rlve_jax.gym.environments._common import PRIME_MODULI, ModCountingEnvironment, random_tree
from rlve_jax.gym.environments._graphs import DENSITIES_L7, density_levels, random_pairs, structure_text


def spanning_tree_count(n: int, edges: list[list[int]], mod: int) -> int:
    """Kirchhoff's matrix-tree theorem: a cofactor of the Laplacian, by Gaussian elimination modulo a prime."""
    laplacian = [[0] * n for _ in range(n)]
    for u, v in edges:
        laplacian[u][u] += 1
        laplacian[v][v] += 1
        laplacian[u][v] -= 1
        laplacian[v][u] -= 1
    matrix = [[x % mod for x in row[1:]] for row in laplacian[1:]]
    size, determinant = n - 1, 1
    for col in range(size):
        pivot = next((r for r in range(col, size) if matrix[r][col]), None)
        if pivot is None:
            return 0
        if pivot != col:
            matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
            determinant = -determinant
        determinant = determinant * matrix[col][col] % mod
        inverse = pow(matrix[col][col], -1, mod)
        for r in range(col + 1, size):
            factor = matrix[r][col] * inverse % mod
            if factor:
                matrix[r] = [(a - factor * b) % mod for a, b in zip(matrix[r], matrix[col])]
    return determinant % mod


def totients(limit: int) -> list[int]:
    phi = list(range(limit + 1))
    for p in range(2, limit + 1):
        if phi[p] == p:
            for multiple in range(p, limit + 1, p):
                phi[multiple] -= phi[multiple] // p
    return phi


def gcd_sum_over_spanning_trees(n: int, edges: list[list[int]], mod: int) -> int:
    """gcd(T) = sum of phi(d) over the common divisors d of T's weights, so the sum is
    sum_d phi(d) * (spanning trees using only edges whose weight d divides)."""
    largest = max(w for _, _, w in edges)
    phi = totients(largest)
    total = 0
    for d in range(1, largest + 1):
        usable = [[u, v] for u, v, w in edges if w % d == 0]
        if len(usable) >= n - 1:
            total += phi[d] * spanning_tree_count(n, usable, mod)
    return total % mod


class SumSpanningTreeGCD(ModCountingEnvironment):
    name = "SumSpanningTreeGCD"

    def levels(self, difficulty):
        n = 4 + difficulty
        return density_levels(n, DENSITIES_L7, min_edges=n - 1)

    def sample(self, params, rng):
        n = params["N"]
        factor = rng.randint(1, n)  # the planted tree's weights share it, so its gcd is at least this
        tree = [[u, v, factor * rng.randint(1, n)] for u, v in random_tree(n, rng, "coin")]
        others = random_pairs(n, int(params["edge_density"] * n * (n - 1) / 2) - (n - 1), rng, exclude=tree,
                              flip=True)
        edges = tree + [[u, v, rng.randint(1, n * n)] for u, v in others]
        rng.shuffle(edges)
        mod = rng.choice(PRIME_MODULI)
        return {"N": n, "edges": edges, "mod": mod, "gold": gcd_sum_over_spanning_trees(n, edges, mod)}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("undirected graph", n, [[u + 1, v + 1, w] for u, v, w in data["edges"]], weight="weight",
                           first=1) +
            "For a spanning tree T of this graph (a set of edges connecting all vertices without cycles), let "
            "gcd(T) be the greatest common divisor of the weights of its edges. Compute the sum of gcd(T) over all "
            f"spanning trees T of the graph, modulo {data['mod']}.\n\n"
            f"Output Format: a single integer in the range [0, {data['mod'] - 1}]."
        )
