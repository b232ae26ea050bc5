"""DistinctEdgeColoredCompleteGraphCounting: M-colourings of the edges of K_N up to relabelling vertices.

Polya counting: average over permutations of the vertices of M^(cycles on edges). For a
permutation of cycle type (l_1, l_2, ...), the edges form sum floor(l_i / 2) cycles inside
the vertex cycles plus sum_{i<j} gcd(l_i, l_j) cycles between them. Summing over cycle
types (partitions of N) keeps this fast.
"""

from collections import Counter
from math import factorial, gcd, prod

from rlve_jax.gym.environments._common import PRIME_MODULI, ModCountingEnvironment, mod_output_format


def partitions(n: int, largest: int | None = None):
    largest = n if largest is None else largest
    if n == 0:
        yield []
        return
    for part in range(min(n, largest), 0, -1):
        for rest in partitions(n - part, part):
            yield [part] + rest


def count_edge_colorings(n: int, colors: int) -> int:
    total = 0
    for cycle_type in partitions(n):
        multiplicity = Counter(cycle_type)
        permutations = factorial(n) // (prod(cycle_type) * prod(factorial(c) for c in multiplicity.values()))
        edge_cycles = sum(l // 2 for l in cycle_type) + sum(
            gcd(a, b) for i, a in enumerate(cycle_type) for b in cycle_type[i + 1:])
        total += permutations * colors ** edge_cycles
    return total // factorial(n)


class DistinctEdgeColoredCompleteGraphCounting(ModCountingEnvironment):
    name = "DistinctEdgeColoredCompleteGraphCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        colors = rng.randint(2, n * (n - 1) // 2)
        mod = rng.choice(PRIME_MODULI)
        return {"N": n, "M": colors, "MOD": mod, "gold": count_edge_colorings(n, colors) % mod}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"Each edge of the complete graph on {n} vertices is coloured with one of {m} colours (not every "
            "colour has to be used). Two colourings are considered the same if one becomes the other after "
            "relabelling the vertices, i.e. there is a permutation of the vertices that maps every edge to "
            "an edge of the same colour. How many different colourings are there?\n\n"
            + mod_output_format(data["MOD"])
        )
