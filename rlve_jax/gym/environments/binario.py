"""Binario: fill the blanks of a 0/1 grid to meet row/column 1-counts with no three equal in a line."""

import random

from rlve_jax.gym.environments._puzzles import (
    SPARSITIES, binary_grid_format, binary_puzzle_intro, columns, counted_binary_puzzle, filled_binary_grid,
    grid_dims, line_match_reward, ones_per_line, ones_targets_text,
)
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID


def has_triple(line: str) -> bool:
    return any(line[i] == line[i + 1] == line[i + 2] for i in range(len(line) - 2))


def random_grid_without_triples(rng: random.Random, rows: int, cols: int) -> list[str]:
    """Randomised backtracking, cell by cell; a cell may not repeat the two cells before it in its row or column.

    An explicit stack of each cell's shuffled options, not recursion: a 39 x 39 grid is deeper than Python's
    default recursion limit. The same draws in the same order as the recursive search, so the same grids.
    """
    grid = [[""] * cols for _ in range(rows)]
    untried: list[list[str]] = []  # the options each cell on the search path has left, the next one last

    def enter() -> None:  # reach the next cell: shuffle its options
        options = ["0", "1"]
        rng.shuffle(options)
        untried.append(options[::-1])

    enter()
    while untried:
        r, c = divmod(len(untried) - 1, cols)
        if not untried[-1]:  # both values failed here: back to the cell before
            untried.pop()
            continue
        value = untried[-1].pop()
        if c >= 2 and grid[r][c - 1] == grid[r][c - 2] == value:
            continue
        if r >= 2 and grid[r - 1][c] == grid[r - 2][c] == value:
            continue
        grid[r][c] = value
        if len(untried) == rows * cols:
            break
        enter()
    return ["".join(row) for row in grid]


class Binario(Environment):
    name = "Binario"

    def levels(self, difficulty):
        return [{"MAX_N_M": 2 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        solution = random_grid_without_triples(rng, rows, cols)
        return counted_binary_puzzle(rng, solution, params["sparsity"])

    def prompt(self, data):
        puzzle = data["puzzle"]
        rows_rule, cols_rule = ones_targets_text(data["row_ones"], data["col_ones"])
        return (
            binary_puzzle_intro(puzzle)
            + "Fill every blank with 0 or 1 (keep the given cells) so that:\n"
            f"1. {rows_rule}\n2. {cols_rule}\n"
            "3. No row or column contains three consecutive equal cells (000 or 111).\n\n"
            + binary_grid_format(len(puzzle), len(puzzle[0]))
        )

    def score(self, data, answer):
        grid = filled_binary_grid(answer, data["puzzle"])
        if grid is None:
            return INVALID
        cols = ["".join(col) for col in columns(grid)]
        if any(has_triple(line) for line in grid + cols):
            return INVALID
        return line_match_reward(ones_per_line(grid), data["row_ones"], ones_per_line(cols), data["col_ones"], beta=10)
