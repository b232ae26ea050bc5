"""GoldWashing: gold from cell (x, y) moves to (f(x), f(y)), f = digit product; the K richest cells."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def top_sum(n: int, k: int) -> int:
    counts = [0] * (n + 1)  # counts[a] = #{1 <= x <= n : digit product of x is a}, for 1 <= a <= n
    for x in range(1, n + 1):
        product = math.prod(map(int, str(x)))
        if 1 <= product <= n:
            counts[product] += 1
    nonzero = [c for c in counts if c]
    cells = sorted((a * b for a in nonzero for b in nonzero), reverse=True)
    return sum(cells[:k])


class GoldWashing(Environment):
    name = "GoldWashing"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(2, params["MAX_N"])
        k = rng.randint(1, n)
        return {"N": n, "K": k, "reference": str(top_sum(n, k))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"A grid has {n} x {n} cells (x, y) with 1 <= x, y <= {n}, and each cell initially holds "
            "one unit of gold. Let f(x) be the product of the decimal digits of x (e.g. f(25) = 10). All gold in "
            "cell (x, y) moves to cell (f(x), f(y)); gold whose target lies outside the grid is lost. "
            f"After the move, what is the total amount of gold in the {data['K']} cells holding the most gold?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)
