"""MinPairSumMultiplicationPermutation: a permutation P minimizing (sum_i A[i][P[i]]) x (sum_i B[i][P[i]])."""

from rlve_jax.gym.environments._common import (
    INVALID, grid_text, is_permutation, min_cost_assignment, minimization_reward, parse_ints,
)
from rlve_jax.gym.env import Environment

Point = tuple[int, int, tuple[int, ...]]  # (sum of A, sum of B, permutation)


def sums(a: list[list[int]], b: list[list[int]], permutation) -> tuple[int, int]:
    return sum(a[i][p] for i, p in enumerate(permutation)), sum(b[i][p] for i, p in enumerate(permutation))


def min_product_permutation(a: list[list[int]], b: list[list[int]]) -> tuple[int, list[int]]:
    """Every permutation is a point (sum A, sum B) > 0; x * y is quasi-concave there, so the minimum is
    at a vertex of the lower-left convex hull. The vertices are found recursively: the point farthest
    below the chord P1-P2 minimizes the linear weight (y1 - y2) x + (x2 - x1) y, one assignment problem."""
    n = len(a)

    def extreme(weight_a: int, weight_b: int) -> Point:
        permutation = tuple(min_cost_assignment([[weight_a * a[i][j] + weight_b * b[i][j] for j in range(n)]
                                                 for i in range(n)]))
        return (*sums(a, b, permutation), permutation)

    heavy = n * max(max(row) for row in a + b) + 1  # lexicographic tie-break between the two sums
    hull = [extreme(heavy, 1), extreme(1, heavy)]  # least sum A, least sum B
    pending = [(hull[0], hull[1])]
    while pending:
        (x1, y1, _), (x2, y2, _) = left, right = pending.pop()
        if (x1, y1) == (x2, y2):
            continue
        middle = extreme(y1 - y2, x2 - x1)
        if (y1 - y2) * middle[0] + (x2 - x1) * middle[1] < (y1 - y2) * x1 + (x2 - x1) * y1:
            hull.append(middle)
            pending += [(left, middle), (middle, right)]
    x, y, permutation = min(hull, key=lambda point: point[0] * point[1])
    return x * y, list(permutation)


class MinPairSumMultiplicationPermutation(Environment):
    name = "MinPairSumMultiplicationPermutation"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        a = [[rng.randint(1, n) for _ in range(n)] for _ in range(n)]
        b = [[rng.randint(1, n) for _ in range(n)] for _ in range(n)]
        best, permutation = min_product_permutation(a, b)
        return {"A": a, "B": b, "optimum": best, "reference": " ".join(map(str, permutation))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"You are given two {n} x {n} matrices A and B (rows and columns are 0-indexed).\n"
            f"A:\n{grid_text(data['A'])}\nB:\n{grid_text(data['B'])}\n\n"
            f"Find a permutation P of 0..{n - 1} that minimizes (A[0][P[0]] + ... + A[{n - 1}][P[{n - 1}]]) x "
            f"(B[0][P[0]] + ... + B[{n - 1}][P[{n - 1}]]).\n\n"
            f"Output Format: a single line with P[0], P[1], ..., P[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        permutation = parse_ints(answer)
        if not is_permutation(permutation, len(data["A"])):
            return INVALID
        x, y = sums(data["A"], data["B"], permutation)
        return minimization_reward(data["optimum"], x * y, beta=5)
