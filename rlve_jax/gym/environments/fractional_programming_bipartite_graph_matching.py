"""FractionalProgramming_BipartiteGraphMatching: a permutation P maximizing
sum A[i][P[i]] / sum B[i][P[i]] (the maximum-ratio assignment)."""

from fractions import Fraction

from rlve_jax.gym.environments._common import (
    grid_text, grow_1p1, maximization_reward, min_cost_assignment, parse_permutation,
)
from rlve_jax.gym.env import Environment


def best_ratio_assignment(a: list[list[int]], b: list[list[int]]) -> list[int]:
    """Dinkelbach's method: with lambda = p/q the assignment maximizing sum(q*A - p*B) (Hungarian
    algorithm, integer costs) improves the ratio unless lambda is already optimal."""
    n = len(a)
    permutation = list(range(n))
    while True:
        ratio = Fraction(sum(a[i][permutation[i]] for i in range(n)), sum(b[i][permutation[i]] for i in range(n)))
        p, q = ratio.numerator, ratio.denominator
        better = min_cost_assignment([[p * b[i][j] - q * a[i][j] for j in range(n)] for i in range(n)])
        if sum(q * a[i][better[i]] - p * b[i][better[i]] for i in range(n)) <= 0:
            return permutation
        permutation = better


class FractionalProgramming_BipartiteGraphMatching(Environment):
    name = "FractionalProgramming_BipartiteGraphMatching"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        b = [[rng.randint(1, n) for _ in range(n)] for _ in range(n)]
        a = [[rng.randint(1, 2 * value) for value in row] for row in b]
        permutation = best_ratio_assignment(a, b)
        optimum = Fraction(sum(a[i][permutation[i]] for i in range(n)), sum(b[i][permutation[i]] for i in range(n)))
        return {"A": a, "B": b, "optimum": [optimum.numerator, optimum.denominator],
                "reference": " ".join(map(str, permutation))}

    def prompt(self, data):
        a, b = data["A"], data["B"]
        n = len(a)

        def matrix(rows: list[list[int]]) -> str:
            return grid_text(rows)

        return (
            f"You are given two {n} x {n} matrices A and B of positive integers (rows and columns indexed 0 to "
            f"{n - 1}).\nA:\n{matrix(a)}\nB:\n{matrix(b)}\n"
            f"Find a permutation P[0], ..., P[{n - 1}] of 0..{n - 1} that maximizes "
            f"(A[0][P[0]] + ... + A[{n - 1}][P[{n - 1}]]) / (B[0][P[0]] + ... + B[{n - 1}][P[{n - 1}]]).\n\n"
            f"Output Format: a single line with P[0] P[1] ... P[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        n = len(data["A"])
        permutation = parse_permutation(answer, n)
        if permutation is None:
            return -0.5
        ratio = Fraction(sum(data["A"][i][permutation[i]] for i in range(n)),
                         sum(data["B"][i][permutation[i]] for i in range(n)))
        return maximization_reward(ratio, Fraction(*data["optimum"]), beta=5)
