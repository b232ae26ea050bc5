"""UndamagedSubmatrixCounting (C16): count the contiguous all-ones submatrices of a 0/1 matrix."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def count_all_ones_submatrices(matrix: list[list[int]]) -> int:
    """Per row, the heights of the runs of ones above each cell; count rectangles with that bottom row."""
    heights = [0] * len(matrix[0])
    total = 0
    for row in matrix:
        heights = [h + 1 if cell else 0 for h, cell in zip(heights, row)]
        total += _row_count(heights)
    return total


def _row_count(heights: list[int]) -> int:
    """Rectangles whose bottom edge lies on this row: sum over right ends j of sum_i min(h[i..j])."""
    total, stack, sums = 0, [], []  # column indices with increasing heights, and their running sums
    for j, height in enumerate(heights):
        while stack and heights[stack[-1]] >= height:
            stack.pop()
            sums.pop()
        prev = stack[-1] if stack else -1
        current = (sums[-1] if sums else 0) + height * (j - prev)
        stack.append(j)
        sums.append(current)
        total += current
    return total


class UndamagedSubmatrixCounting(Environment):
    name = "UndamagedSubmatrixCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        density = rng.uniform(0.3, 0.95)
        matrix = [[int(rng.random() < density) for _ in range(m)] for _ in range(n)]
        return {"matrix": matrix, "reference": str(count_all_ones_submatrices(matrix))}

    def prompt(self, data):
        rows = "\n".join("".join(map(str, row)) for row in data["matrix"])
        n, m = len(data["matrix"]), len(data["matrix"][0])
        return (
            f"You are given a {n} x {m} matrix of 0s and 1s (one row per line):\n{rows}\n\n"
            "How many of its submatrices (choose a contiguous range of rows and a contiguous range of "
            "columns) contain only 1s?\n\nOutput Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
