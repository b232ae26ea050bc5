"""Sudoku: complete an (N*M) x (N*M) Sudoku with N x M boxes (uniqueness not enforced, as in the original)."""

import random

from rlve_jax.gym.environments._common import INVALID, grid_text, parse_int_grid
from rlve_jax.gym.environments._puzzles import SPARSITIES, blank_cells, columns, int_grid_format, keeps_givens
from rlve_jax.gym.env import Environment


def shuffled_solution(rng: random.Random, box_rows: int, box_cols: int) -> list[list[int]]:
    """Pattern solution, digits relabelled, rows/bands and columns/stacks shuffled."""
    side = box_rows * box_cols
    digits = list(range(1, side + 1))
    rng.shuffle(digits)

    def order(group: int, groups: int) -> list[int]:
        blocks = rng.sample(range(groups), groups)
        return [b * group + i for b in blocks for i in rng.sample(range(group), group)]

    rows, cols = order(box_rows, box_cols), order(box_cols, box_rows)
    return [[digits[(box_cols * (r % box_rows) + r // box_rows + c) % side] for c in cols] for r in rows]


def boxes(grid: list[list[int]], box_rows: int, box_cols: int) -> list[list[int]]:
    side = len(grid)
    return [[grid[r][c] for r in range(top, top + box_rows) for c in range(left, left + box_cols)]
            for top in range(0, side, box_rows) for left in range(0, side, box_cols)]


class Sudoku(Environment):
    name = "Sudoku"

    def levels(self, difficulty):
        return [{"MAX_N_M": 2 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        box_rows, box_cols = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        solution = shuffled_solution(rng, box_rows, box_cols)
        if rng.random() < 0.5:
            solution, box_rows, box_cols = columns(solution), box_cols, box_rows
        side = box_rows * box_cols
        puzzle = [row[:] for row in solution]
        for r, c in blank_cells(rng, side, side, params["sparsity"]):
            puzzle[r][c] = 0
        return {"puzzle": puzzle, "box": [box_rows, box_cols], "reference": grid_text(solution)}

    def prompt(self, data):
        (box_rows, box_cols), side = data["box"], len(data["puzzle"])
        return (
            f"Solve this {side} x {side} Sudoku; 0 marks an empty cell:\n{grid_text(data['puzzle'])}\n\n"
            f"Fill every empty cell with a number from 1 to {side} so that every row, every column and every box "
            f"contains each number exactly once. The grid is divided into boxes of {box_rows} rows x {box_cols} "
            "columns (boxes start at the top-left corner). Keep the given numbers.\n\n"
            + int_grid_format(side, side, "the solved grid")
        )

    def score(self, data, answer):
        puzzle, (box_rows, box_cols) = data["puzzle"], data["box"]
        side = len(puzzle)
        grid = parse_int_grid(answer, side, side)
        if any(not 1 <= v <= side for row in grid for v in row) or not keeps_givens(puzzle, grid, 0):
            return INVALID
        groups = grid + columns(grid) + boxes(grid, box_rows, box_cols)
        return float(all(len(set(group)) == side for group in groups))
