"""Numbrix: fill a grid with 0..NM-1 so consecutive numbers are orthogonally adjacent, keeping the clues."""

import random

from rlve_jax.gym.environments._common import INVALID, grid_text
from rlve_jax.gym.environments._puzzles import (
    SPARSITIES, blank_cells, completed_permutation, grid_dims, int_grid_format, neighbours4,
)
from rlve_jax.gym.env import Environment


BLANK = -1


def random_hamiltonian_path(rng: random.Random, rows: int, cols: int) -> list[tuple[int, int]]:
    """Backbite moves from a snake path: a random Hamiltonian path of the grid graph."""
    path = [(r, c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]
    for _ in range(10 * rows * cols):
        if rng.random() < 0.5:
            path.reverse()
        end = path[-1]
        options = [cell for cell in neighbours4(*end, rows, cols) if cell != path[-2]]
        if options:
            k = path.index(rng.choice(options))
            path[k + 1:] = path[k + 1:][::-1]
    return path


class Numbrix(Environment):
    name = "Numbrix"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        solution = [[0] * cols for _ in range(rows)]
        for value, (r, c) in enumerate(random_hamiltonian_path(rng, rows, cols)):
            solution[r][c] = value
        puzzle = [row[:] for row in solution]
        for r, c in blank_cells(rng, rows, cols, params["sparsity"]):
            puzzle[r][c] = BLANK
        return {"puzzle": puzzle, "reference": grid_text(solution)}

    def prompt(self, data):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        return (
            f"You are given a {rows} x {cols} grid; {BLANK} marks an empty cell:\n{grid_text(puzzle)}\n\n"
            f"Fill the empty cells so that every integer from 0 to {rows * cols - 1} appears exactly once and, for "
            "every k, the cells holding k and k+1 are orthogonally adjacent (share a side). Keep the given "
            "numbers.\n\n"
            + int_grid_format(rows, cols)
        )

    def score(self, data, answer):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        grid = completed_permutation(answer, puzzle, range(rows * cols), BLANK)
        if grid is None:
            return INVALID
        where = {grid[r][c]: (r, c) for r in range(rows) for c in range(cols)}
        breaks = sum(abs(where[k][0] - where[k + 1][0]) + abs(where[k][1] - where[k + 1][1]) != 1
                     for k in range(rows * cols - 1))
        return (1 / (1 + breaks)) ** 3  # 1 / (number of path pieces), cubed
