"""MinimumFibonacciRepresentation: fewest Fibonacci numbers, added or subtracted, that make K."""

import functools

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p5


@functools.lru_cache(maxsize=None)
def fewest_terms(k: int) -> int:
    """An optimal representation uses the Fibonacci number just below or just above k
    (checked against breadth-first search in tests)."""
    below, above = 1, 2
    while above < k:
        below, above = above, below + above
    if k in (below, above):
        return 1
    return 1 + min(fewest_terms(k - below), fewest_terms(above - k))


class MinimumFibonacciRepresentation(ExactIntegerEnvironment):
    name = "MinimumFibonacciRepresentation"

    def levels(self, difficulty):
        return [{"MAX_K": grow_1p5(15, difficulty)}]

    def sample(self, params, rng):
        k = rng.randint(4, params["MAX_K"])
        return {"K": k, "reference": str(fewest_terms(k))}

    def prompt(self, data):
        return (
            "The Fibonacci numbers are 1, 2, 3, 5, 8, 13, 21, ... (each is the sum of the previous two). "
            f"Write {data['K']} as a sum of Fibonacci numbers, each taken with a plus or a minus sign "
            "(a Fibonacci number may be used more than once), using as few terms as possible. "
            "For example, 10 = 13 - 3 uses 2 terms. What is the minimum number of terms?\n\n"
            "Output Format: a single integer."
        )
