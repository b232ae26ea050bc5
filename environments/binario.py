"""Binario: fill the blanks of a 0/1 grid to meet row/column 1-counts with no three equal in a line."""

import random

from rlve_jax.env import Environment

from ._logic_util import INVALID, SPARSITIES, blank_cells, columns, grid_dims, keeps_givens, line_match_reward, parse_char_grid


def has_triple(line: str) -> bool:
    return any(line[i] == line[i + 1] == line[i + 2] for i in range(len(line) - 2))


def random_grid_without_triples(rng: random.Random, rows: int, cols: int) -> list[str]:
    """Randomised backtracking, cell by cell; a cell may not repeat the two cells before it in its row or column."""
    grid = [[""] * cols for _ in range(rows)]

    def fill(k: int) -> bool:
        if k == rows * cols:
            return True
        r, c = divmod(k, cols)
        options = ["0", "1"]
        rng.shuffle(options)
        for value in options:
            if c >= 2 and grid[r][c - 1] == grid[r][c - 2] == value:
                continue
            if r >= 2 and grid[r - 1][c] == grid[r - 2][c] == value:
                continue
            grid[r][c] = value
            if fill(k + 1):
                return True
        return False

    fill(0)
    return ["".join(row) for row in grid]


class Binario(Environment):
    name = "Binario"

    def levels(self, difficulty):
        return [{"MAX_N_M": 2 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        solution = random_grid_without_triples(rng, rows, cols)
        puzzle = [list(line) for line in solution]
        for r, c in blank_cells(rng, rows, cols, params["sparsity"]):
            puzzle[r][c] = "*"
        return {
            "puzzle": ["".join(row) for row in puzzle],
            "row_ones": [line.count("1") for line in solution],
            "col_ones": ["".join(col).count("1") for col in columns(solution)],
            "reference": "\n".join(solution),
        }

    def prompt(self, data):
        rows, cols = len(data["puzzle"]), len(data["puzzle"][0])
        return (
            f"You are given a {rows} x {cols} grid. Each cell holds 0 or 1; '*' marks a blank cell you must fill:\n"
            + "\n".join(data["puzzle"]) + "\n\n"
            "Fill every blank with 0 or 1 (keep the given cells) so that:\n"
            f"1. Row i (from top, 0-indexed) contains exactly R[i] ones, where R = {' '.join(map(str, data['row_ones']))}\n"
            f"2. Column j (from left, 0-indexed) contains exactly C[j] ones, where C = "
            f"{' '.join(map(str, data['col_ones']))}\n"
            "3. No row or column contains three consecutive equal cells (000 or 111).\n\n"
            f"Output Format: {rows} lines, each with {cols} characters 0 or 1 and no separators: the completed grid."
        )

    def score(self, data, answer):
        puzzle = data["puzzle"]
        grid = parse_char_grid(answer, len(puzzle), len(puzzle[0]), "01")
        if not keeps_givens(puzzle, grid, "*"):
            return INVALID
        cols = ["".join(col) for col in columns(grid)]
        if any(has_triple(line) for line in grid + cols):
            return INVALID
        return line_match_reward([line.count("1") for line in grid], data["row_ones"],
                                 [line.count("1") for line in cols], data["col_ones"], beta=10)
