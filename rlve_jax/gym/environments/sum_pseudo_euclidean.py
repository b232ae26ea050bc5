"""SumPseudoEuclidean: the sum over i, j <= N of the steps of a doubling/subtracting process (0 if endless)."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


def steps(a: int, b: int) -> int:
    """The smaller number doubles by taking from the larger until they are equal; 0 if that never happens.

    a + b never changes, so there are fewer than a + b states and a repeat means a cycle.
    """
    seen, count = set(), 0
    while a != b:
        if (a, b) in seen:
            return 0
        seen.add((a, b))
        a, b = (2 * a, b - a) if a < b else (a - b, 2 * b)
        count += 1
    return count


class SumPseudoEuclidean(Environment):
    name = "SumPseudoEuclidean"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(5, params["MAX_N"])
        total = sum(steps(i, j) for i in range(1, n + 1) for j in range(1, n + 1))
        return {"N": n, "reference": str(total)}

    def prompt(self, data):
        return (
            "Define a function f(a, b) on positive integers:\n"
            "- if a = b, then f(a, b) = 0;\n"
            "- if a < b, then f(a, b) = 1 + f(2a, b - a);\n"
            "- if a > b, then f(a, b) = 1 + f(a - b, 2b).\n"
            "If this recursion never terminates for (a, b), let f(a, b) = 0 instead. For example, f(1, 3) = 1 "
            "(since f(2, 2) = 0), while f(1, 2) = 0 because (1, 2) -> (2, 1) -> (1, 2) -> ... never ends.\n"
            f"Compute the sum of f(i, j) over all integers 1 <= i <= {data['N']} and 1 <= j <= {data['N']}.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
