"""PythagoreanGraph_IndependentSetCounting (held-out): independent sets when primitive Pythagorean legs conflict."""

from functools import lru_cache
from math import gcd, isqrt

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_mod


def primitive_legs(a: int, b: int) -> bool:
    """a and b are the legs of a primitive Pythagorean triple: a^2 + b^2 is a square and gcd(a, b) = 1."""
    c = isqrt(a * a + b * b)
    return c * c == a * a + b * b and gcd(a, b) == 1


def count_independent_sets(neighbour_masks: list[int]) -> int:
    """All independent sets (the empty one included), branching on the lowest vertex with memoization."""

    @lru_cache(maxsize=None)
    def count(mask: int) -> int:
        if not mask:
            return 1
        v = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << v)
        if not neighbour_masks[v] & rest:
            return 2 * count(rest)
        return count(rest) + count(rest & ~neighbour_masks[v])

    return count((1 << len(neighbour_masks)) - 1)


class PythagoreanGraph_IndependentSetCounting(Environment):
    name = "PythagoreanGraph_IndependentSetCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # as the original: redraw until some pair conflicts (else every subset counts)
            values = [rng.randint(1, 2 * n) for _ in range(n)]
            masks = [sum(1 << j for j in range(n) if j != i and primitive_legs(values[i], values[j]))
                     for i in range(n)]
            if any(masks):
                break
        mod = rng.randint(2, 1_000_000)
        return {"H": values, "mod": mod, "reference": str((count_independent_sets(masks) - 1) % mod)}

    def prompt(self, data):
        values, mod = data["H"], data["mod"]
        listing = " ".join(f"H[{i}]={h}" for i, h in enumerate(values))
        return (
            f"There are {len(values)} items with values {listing}\n"
            "Two items i and j conflict if their values a = H[i] and b = H[j] are the two legs of a primitive "
            "Pythagorean triple: a^2 + b^2 = c^2 for some integer c, and gcd(a, b) = 1. Count the non-empty sets "
            "of items (chosen by index) that contain no two conflicting items. Give the count modulo "
            f"{mod}.\n\n"
            f"Output Format: a single integer in [0, {mod - 1}]."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["mod"])
