"""MostNumEdge_NonSelfIsomorphism: the most edges an asymmetric graph (trivial automorphism group) on N
vertices can have."""

import functools
import math

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


@functools.cache
def asymmetric_tree_counts(limit: int) -> tuple[int, ...]:
    """counts[s] = number of asymmetric (identity) free trees with s vertices, s = 0..limit (OEIS A000220).

    Rooted identity trees have pairwise distinct child subtrees, so their counts r satisfy
    r(s+1) = [x^s] prod_k (1 + x^k)^r(k); the free ones follow by Otter's dissimilarity count.
    """
    rooted = [0] * (limit + 1)
    rooted[1] = 1
    product = [1] + [0] * limit  # prod over processed k of (1 + x^k)^rooted[k], truncated
    for k in range(1, limit):
        product = [sum(math.comb(rooted[k], j) * product[degree - k * j] for j in range(degree // k + 1))
                   for degree in range(limit + 1)]
        rooted[k + 1] = product[k]
    counts = [0] * (limit + 1)
    for s in range(1, limit + 1):
        pairs = sum(rooted[j] * rooted[s - j] for j in range(s + 1)) + (rooted[s // 2] if s % 2 == 0 else 0)
        counts[s] = rooted[s] - pairs // 2
    return tuple(counts)


def min_asymmetric_edges(n: int) -> int:
    """Fewest edges of an asymmetric graph on n >= 6 vertices.

    A graph with c components and cyclomatic numbers z_i has n - c + sum z_i edges. Asymmetric components
    are pairwise non-isomorphic and asymmetric themselves: the single vertex, asymmetric trees (7+ vertices)
    or cyclic graphs of 6+ vertices, which never beat leaving those vertices to one unicyclic component
    (a triangle with pendant paths of lengths 1 and s-4 is asymmetric for every s >= 6). So maximize the
    number of distinct asymmetric trees packed exactly into t vertices, with the other n - t vertices
    either none or at least 6 (one unicyclic component).
    """
    counts = asymmetric_tree_counts(n)
    most = [None] * (n + 1)  # most[t]: most distinct asymmetric trees with exactly t vertices in total
    most[0] = 0
    for size in range(1, n + 1):
        for _ in range(min(counts[size], n // size)):
            for total in range(n, size - 1, -1):
                if most[total - size] is not None and (most[total] is None or most[total - size] + 1 > most[total]):
                    most[total] = most[total - size] + 1
    components = max(m for t, m in enumerate(most) if m is not None and (t == n or t <= n - 6))
    return n - components


class MostNumEdge_NonSelfIsomorphism(ExactIntegerEnvironment):
    name = "MostNumEdge_NonSelfIsomorphism"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(6, params["MAX_N"])
        return {"N": n, "reference": str(n * (n - 1) // 2 - min_asymmetric_edges(n))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Consider simple undirected graphs with exactly {n} vertices (no self-loops, no multiple edges). "
            "An automorphism of a graph is a permutation of its vertices that maps every edge to an edge and "
            "every non-edge to a non-edge. A graph is asymmetric if its only automorphism is the identity "
            f"permutation. What is the maximum number of edges of an asymmetric graph with {n} vertices?\n\n"
            "Output Format: a single integer."
        )
