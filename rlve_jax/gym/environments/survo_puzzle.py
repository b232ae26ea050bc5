"""SurvoPuzzle: fill the blanks so the grid is a permutation of 0..NM-1 with the given row and column sums."""

from rlve_jax.gym.environments._common import INVALID, grid_text
from rlve_jax.gym.environments._puzzles import (
    SPARSITIES, blank_cells, columns, completed_permutation, grid_dims, int_grid_format, line_match_reward,
)
from rlve_jax.gym.env import Environment


BLANK = -1


class SurvoPuzzle(Environment):
    name = "SurvoPuzzle"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        values = rng.sample(range(rows * cols), rows * cols)
        solution = [values[r * cols:(r + 1) * cols] for r in range(rows)]
        puzzle = [row[:] for row in solution]
        for r, c in blank_cells(rng, rows, cols, params["sparsity"]):
            puzzle[r][c] = BLANK
        return {"puzzle": puzzle, "row_sums": [sum(row) for row in solution],
                "col_sums": [sum(col) for col in columns(solution)], "reference": grid_text(solution)}

    def prompt(self, data):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        return (
            f"You are given a {rows} x {cols} grid; {BLANK} marks an empty cell:\n{grid_text(puzzle)}\n\n"
            f"Fill the empty cells so that every integer from 0 to {rows * cols - 1} appears exactly once, keeping "
            "the given numbers, and:\n"
            f"- the sums of rows 0..{rows - 1} are: {' '.join(map(str, data['row_sums']))}\n"
            f"- the sums of columns 0..{cols - 1} are: {' '.join(map(str, data['col_sums']))}\n\n"
            + int_grid_format(rows, cols)
        )

    def score(self, data, answer):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        grid = completed_permutation(answer, puzzle, range(rows * cols), BLANK)
        if grid is None:
            return INVALID
        return line_match_reward([sum(row) for row in grid], data["row_sums"],
                                 [sum(col) for col in columns(grid)], data["col_sums"], beta=5)
