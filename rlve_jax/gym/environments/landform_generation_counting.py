"""LandformGenerationCounting (held-out): distinct height sequences of valid mountain orders, modulo MOD."""

from itertools import groupby

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_mod


def count_height_sequences(heights: list[int], limits: list[int]) -> int:
    """Exact number of distinct height sequences of orders where each mountain has < C taller ones before it.

    Going from the tallest height down, the mountains of one height only choose gaps among
    the t taller ones already placed (gap g = number of taller mountains before it). Mountains
    of equal height are interchangeable, so a height class contributes the number of sorted
    gap tuples g_1 <= ... <= g_s with g_j < its j-th smallest limit (capped at t + 1).
    The classes are independent, so the counts multiply.
    """
    mountains = sorted(zip(heights, limits), key=lambda m: -m[0])
    total, taller = 1, 0
    for _, group in groupby(mountains, key=lambda m: m[0]):
        caps = sorted(min(limit, taller + 1) for _, limit in group)
        ways = [1] * (taller + 1)  # ways[g]: sorted tuples so far whose last gap is <= g
        for cap in caps:
            ways = [ways[g] if g < cap else 0 for g in range(taller + 1)]  # the new gap is g itself
            running = 0
            for g in range(taller + 1):
                running += ways[g]
                ways[g] = running
        total *= ways[taller]
        taller += len(caps)
    return total


class LandformGenerationCounting(Environment):
    name = "LandformGenerationCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        heights = [rng.randint(1, n) for _ in range(n)]
        planted = list(range(n))
        rng.shuffle(planted)
        limits = [0] * n
        for position, mountain in enumerate(planted):
            taller_before = sum(heights[other] > heights[mountain] for other in planted[:position])
            limits[mountain] = rng.randint(taller_before + 1, n)
        mod = rng.randint(2, 1_000_000_000)
        return {"H": heights, "C": limits, "mod": mod,
                "reference": str(count_height_sequences(heights, limits) % mod)}

    def prompt(self, data):
        n, mod = len(data["H"]), data["mod"]
        mountains = "\n".join(f"Mountain {i}: H={h} C={c}" for i, (h, c) in enumerate(zip(data["H"], data["C"])))
        return (
            f"There are {n} mountains, each with a height H and a key C:\n{mountains}\n\n"
            "Arrange all mountains in a row (a permutation). The arrangement is valid if, for every mountain, the "
            "number of mountains placed before it that are strictly taller than it is less than its C. "
            "Each valid arrangement gives a sequence of heights (read from left to right); mountains with the same "
            "height are indistinguishable in this sequence. How many distinct height sequences come from valid "
            f"arrangements? Give the answer modulo {mod}.\n\n"
            f"Output Format: a single integer in [0, {mod - 1}]."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["mod"])
