"""Minimum_DominatingSet: the cheapest vertex set such that every vertex is in it or adjacent to it."""

from rlve_jax.gym.environments._common import adjacency_masks
from rlve_jax.gym.environments._graphs import CheapestVertexSetEnvironment


class Minimum_DominatingSet(CheapestVertexSetEnvironment):
    name = "Minimum_DominatingSet"
    requirement = "every vertex is either selected or adjacent to a selected vertex (a dominating set)"

    def coverage(self, n, edges):
        return [mask | 1 << v for v, mask in enumerate(adjacency_masks(n, edges))], (1 << n) - 1
