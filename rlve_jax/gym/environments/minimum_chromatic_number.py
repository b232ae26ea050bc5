"""MinimumChromaticNumber: a proper vertex coloring with the fewest colors."""

from rlve_jax.gym.environments._common import adjacency_masks
from rlve_jax.gym.environments._graphs import GraphColoringEnvironment, max_clique_size, minimum_coloring


class MinimumChromaticNumber(GraphColoringEnvironment):
    name = "MinimumChromaticNumber"
    rules = "- the two endpoints of every edge have different colors."

    def optimal_coloring(self, n, edges):
        neighbours = adjacency_masks(n, edges)
        return minimum_coloring(n, neighbours, lower=max_clique_size(n, neighbours)[0])

    def is_valid(self, edges, colors):
        return all(colors[u] != colors[v] for u, v in edges)
