"""MinimumSumDifferenceSubmatrix: keep R rows and C columns of a matrix so that the induced submatrix has
the smallest sum of |differences| between side-adjacent entries."""

from itertools import combinations

import numpy as np

from rlve_jax.gym.environments._common import INVALID, grid_text, minimization_reward, parse_ints, parse_lines
from rlve_jax.gym.env import Environment, FormatError


def roughness(matrix: list[list[int]], rows: list[int], columns: list[int]) -> int:
    """Sum of |a - b| over horizontally and vertically adjacent entries of the submatrix."""
    sub = [[matrix[r][c] for c in columns] for r in rows]
    horizontal = sum(abs(row[k] - row[k + 1]) for row in sub for k in range(len(row) - 1))
    vertical = sum(abs(a - b) for upper, lower in zip(sub, sub[1:]) for a, b in zip(upper, lower))
    return horizontal + vertical


def smoothest_submatrix(matrix: list[list[int]], keep_rows: int, keep_columns: int) -> tuple[int, list[int], list[int]]:
    """Enumerate the row subsets; for each, a DP over the kept columns in order:
    best[c][k] = vertical(k) + min over j < k of best[c-1][j] + horizontal(j, k)."""
    a = np.array(matrix, dtype=np.int64)
    n, m = a.shape
    pair_gaps = np.abs(a[:, :, None] - a[:, None, :])  # [row, column j, column k]
    later = np.triu(np.ones((m, m), dtype=bool), 1)  # j < k
    infinity = np.iinfo(np.int64).max // 4
    best_total, best_rows = infinity, None
    for rows in combinations(range(n), keep_rows):
        vertical = np.abs(np.diff(a[list(rows)], axis=0)).sum(axis=0)  # [column]
        horizontal = np.where(later, pair_gaps[list(rows)].sum(axis=0), infinity)
        best = vertical.copy()
        for _ in range(keep_columns - 1):
            best = (best[:, None] + horizontal).min(axis=0) + vertical
        total = int(best.min())
        if total < best_total:
            best_total, best_rows = total, list(rows)
    columns = cheapest_columns(matrix, best_rows, keep_columns)
    return best_total, best_rows, columns


def cheapest_columns(matrix: list[list[int]], rows: list[int], keep_columns: int) -> list[int]:
    """The column DP for fixed rows, with back pointers."""
    m = len(matrix[0])
    vertical = [sum(abs(matrix[r][c] - matrix[s][c]) for r, s in zip(rows, rows[1:])) for c in range(m)]
    best = [vertical[:]]
    back = [[-1] * m]
    for _ in range(keep_columns - 1):
        row, pointer = [], []
        for k in range(m):
            options = [(best[-1][j] + sum(abs(matrix[r][j] - matrix[r][k]) for r in rows), j) for j in range(k)]
            value, j = min(options) if options else (float("inf"), -1)
            row.append(value + vertical[k])
            pointer.append(j)
        best.append(row)
        back.append(pointer)
    k = min(range(m), key=lambda c: best[-1][c])
    columns = []
    for level in range(keep_columns - 1, -1, -1):
        columns.append(k)
        k = back[level][k]
    return columns[::-1]


class MinimumSumDifferenceSubmatrix(Environment):
    name = "MinimumSumDifferenceSubmatrix"

    def levels(self, difficulty):
        return [{"MAX_N_M": 4 + difficulty}]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        n, m = rng.randint(3, top), rng.randint(3, top)
        keep_rows, keep_columns = rng.randint(2, n - 1), rng.randint(2, m - 1)
        matrix = [[rng.randint(1, n * m) for _ in range(m)] for _ in range(n)]
        best, rows, columns = smoothest_submatrix(matrix, keep_rows, keep_columns)
        return {"matrix": matrix, "R": keep_rows, "C": keep_columns, "optimum": best,
                "reference": " ".join(map(str, rows)) + "\n" + " ".join(map(str, columns))}

    def prompt(self, data):
        matrix = data["matrix"]
        n, m, r, c = len(matrix), len(matrix[0]), data["R"], data["C"]
        return (
            f"You are given a matrix with {n} rows and {m} columns (rows and columns are 0-indexed):\n"
            + grid_text(matrix) + "\n\n"
            f"Choose exactly {r} rows and exactly {c} columns; they form a {r} x {c} submatrix that keeps the "
            "original order of the rows and columns. Minimize the sum of |x - y| over all pairs of entries x, y that "
            "are adjacent (horizontally or vertically) in the submatrix.\n\n"
            f"Output Format: two lines: the first with the {r} chosen row indices in increasing order, the second "
            f"with the {c} chosen column indices in increasing order, separated by spaces."
        )

    def score(self, data, answer):
        lines = parse_lines(answer)
        if len(lines) != 2:
            raise FormatError("expected two lines")
        rows, columns = parse_ints(lines[0]), parse_ints(lines[1])
        if len(rows) != data["R"] or len(columns) != data["C"]:
            raise FormatError("wrong number of indices")
        n, m = len(data["matrix"]), len(data["matrix"][0])
        for chosen, size in ((rows, n), (columns, m)):
            if any(not 0 <= i < size for i in chosen) or any(a >= b for a, b in zip(chosen, chosen[1:])):
                return INVALID
        return minimization_reward(data["optimum"], roughness(data["matrix"], rows, columns), beta=5)

    def perturb(self, problem, answer):
        """The last column index replaced by the first: no longer increasing, so invalid."""
        rows, columns = answer.split("\n")
        kept = columns.split()
        return f"{rows}\n{' '.join(kept[:-1] + kept[:1])}"
