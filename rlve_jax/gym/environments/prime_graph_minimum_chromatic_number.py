"""PrimeGraph_MinimumChromaticNumber: color 1..N so numbers differing by a prime get different colors,
with the fewest colors."""

import itertools

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, parse_ints


def primes_below(n: int) -> list[int]:
    """Sieve of Eratosthenes."""
    sieve = [True] * max(n, 2)
    sieve[0] = sieve[1] = False
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = [False] * len(range(p * p, n, p))
    return [p for p in range(n) if sieve[p]]


def conflicts(n: int) -> list[tuple[int, int]]:
    """0-based index pairs of the numbers 1..n whose difference is prime."""
    return [(i, i + p) for p in primes_below(n) for i in range(n - p)]


def optimal_coloring(n: int) -> list[int]:
    """From N = 8 the answer is 4: {1, 3, 6, 8} differ pairwise by primes, and i mod 4 works because
    a difference divisible by 4 is never prime. Below that, search the few colorings exhaustively."""
    if n >= 8:
        return [i % 4 for i in range(1, n + 1)]
    pairs = conflicts(n)
    for colors in range(1, n + 1):
        for coloring in itertools.product(range(colors), repeat=n):
            if all(coloring[i] != coloring[j] for i, j in pairs):
                return list(coloring)
    raise AssertionError("unreachable: n colors always suffice")


class PrimeGraph_MinimumChromaticNumber(Environment):
    name = "PrimeGraph_MinimumChromaticNumber"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(6, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        coloring = optimal_coloring(n)
        return {"N": n, "optimum": len(set(coloring)), "reference": " ".join(str(c + 1) for c in coloring)}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Consider the integers 1, 2, ..., {n} as the vertices of a graph, where two integers are joined by "
            "an edge if their difference is a prime number. Assign a color (a positive integer) to each vertex so "
            "that adjacent vertices get different colors, using as few distinct colors as possible.\n\n"
            f"Output Format: a single line with {n} integers separated by spaces: the colors of 1, 2, ..., {n} "
            "in order."
        )

    def score(self, data, answer):
        colors = parse_ints(answer)
        n = data["N"]
        if len(colors) != n:
            return -0.5
        if any(colors[i] == colors[j] for i, j in conflicts(n)):
            return -0.5
        return (data["optimum"] / len(set(colors))) ** 5

    def perturb(self, problem, answer):
        """Give N the color of N - 2 (they differ by the prime 2): shifting a color may keep it valid."""
        colors = answer.split()
        return " ".join(colors[:-1] + [colors[-3]])
