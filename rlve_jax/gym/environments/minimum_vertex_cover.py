"""Minimum_VertexCover: the cheapest vertex set touching every edge."""

from rlve_jax.gym.environments._graphs import CheapestVertexSetEnvironment


class Minimum_VertexCover(CheapestVertexSetEnvironment):
    name = "Minimum_VertexCover"
    requirement = "every edge has at least one selected endpoint (a vertex cover)"

    def coverage(self, n, edges):
        """Vertex v covers the edges (by index) it touches."""
        return [sum(1 << i for i, e in enumerate(edges) if v in e) for v in range(n)], (1 << len(edges)) - 1
