"""SumManhattan_CurvedSurface: the sum over k in [A, B] of (|x|+|y|+|z|)^2 over integer triples with x*y*z = k."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


def surface_sum(k: int) -> int:
    """Ordered positive triples, times 4 sign patterns (an even number of negative factors)."""
    total = 0
    for x in range(1, k + 1):
        if k % x:
            continue
        for y in range(1, k // x + 1):
            if (k // x) % y == 0:
                total += (x + y + k // x // y) ** 2
    return 4 * total


class SumManhattan_CurvedSurface(Environment):
    name = "SumManhattan_CurvedSurface"

    def levels(self, difficulty):
        return [{"MAX_A_B": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        a = rng.randint(1, params["MAX_A_B"])
        b = rng.randint(a, params["MAX_A_B"])
        return {"A": a, "B": b, "reference": str(sum(map(surface_sum, range(a, b + 1))))}

    def prompt(self, data):
        return (
            "For a positive integer k, consider all ordered triples of integers (x, y, z), negative values allowed, "
            "with x * y * z = k, and add up (|x| + |y| + |z|)^2 over these triples. "
            f"Compute the total of these sums over all k with {data['A']} <= k <= {data['B']}.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
