"""GaussianElimination: integers satisfying an overdetermined linear system with a planted solution."""

from fractions import Fraction

from rlve_jax.gym.environments._common import fraction_reward, grow_1p1, parse_exact_ints
from rlve_jax.gym.env import Environment


def rank(rows: list[list[int]]) -> int:
    matrix = [[Fraction(v) for v in row] for row in rows]
    r = 0
    for col in range(len(matrix[0])):
        pivot = next((i for i in range(r, len(matrix)) if matrix[i][col]), None)
        if pivot is None:
            continue
        matrix[r], matrix[pivot] = matrix[pivot], matrix[r]
        for i in range(r + 1, len(matrix)):
            factor = matrix[i][col] / matrix[r][col]
            matrix[i] = [a - factor * b for a, b in zip(matrix[i], matrix[r])]
        r += 1
    return r


class GaussianElimination(Environment):
    name = "GaussianElimination"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return [{"N": n, "M": tenths * n // 10} for tenths in range(20, 31)]  # m = 2.0, 2.1, ..., 3.0

    def sample(self, params, rng):
        n, m = params["N"], params["M"]
        solution = [rng.randint(1, n) for _ in range(n)]
        while True:  # a unique solution: the system has full column rank
            rows = []
            while len(rows) < m:
                row = [rng.randint(1, n) if rng.random() < 0.5 else 0 for _ in range(n)]
                if any(row):
                    rows.append(row)
            if rank(rows) == n:
                break
        constants = [sum(a * x for a, x in zip(row, solution)) for row in rows]
        return {"rows": rows, "constants": constants, "reference": " ".join(map(str, solution))}

    def prompt(self, data):
        n = len(data["rows"][0])
        equations = "\n".join(
            " + ".join(f"{a}*x[{j}]" for j, a in enumerate(row) if a) + f" = {b}"
            for row, b in zip(data["rows"], data["constants"]))
        return (
            f"There are {n} integer unknowns x[0], ..., x[{n - 1}] and {len(data['rows'])} linear equations:\n"
            f"{equations}\n"
            "Find integer values of the unknowns that satisfy all the equations.\n\n"
            f"Output Format: a single line with the {n} integers x[0] ... x[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        xs = parse_exact_ints(answer, len(data["rows"][0]))
        satisfied = sum(sum(a * x for a, x in zip(row, xs)) == b for row, b in zip(data["rows"], data["constants"]))
        return fraction_reward(satisfied, len(data["rows"]), 10)
