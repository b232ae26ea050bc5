"""CampsitePuzzle: complete a 0/1 grid with given row/column 1-counts and no two orthogonally adjacent 1s."""

from rlve_jax.gym.environments._puzzles import (
    SPARSITIES, binary_grid_format, binary_puzzle_intro, columns, counted_binary_puzzle, filled_binary_grid,
    grid_dims, line_match_reward, neighbours4, ones_per_line, ones_targets_text,
)
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID


class CampsitePuzzle(Environment):
    name = "CampsitePuzzle"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        grid = [["0"] * cols for _ in range(rows)]
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        rng.shuffle(cells)
        for r, c in cells:  # a random independent set: 1 with probability 1/2 where no neighbour is 1
            if rng.random() < 0.5 and all(grid[a][b] == "0" for a, b in neighbours4(r, c, rows, cols)):
                grid[r][c] = "1"
        solution = ["".join(row) for row in grid]
        return counted_binary_puzzle(rng, solution, params["sparsity"])

    def prompt(self, data):
        puzzle = data["puzzle"]
        rows_rule, cols_rule = ones_targets_text(data["row_ones"], data["col_ones"])
        return (
            binary_puzzle_intro(puzzle)
            + "Fill every blank with 0 or 1 (keep the given cells) so that:\n"
            "1. No two 1s are orthogonally adjacent (sharing a side).\n"
            f"2. {rows_rule}\n3. {cols_rule}\n\n"
            + binary_grid_format(len(puzzle), len(puzzle[0]))
        )

    def score(self, data, answer):
        grid = filled_binary_grid(answer, data["puzzle"])
        if grid is None:
            return INVALID
        cols = ["".join(col) for col in columns(grid)]
        if any("11" in line for line in grid + cols):
            return INVALID
        return line_match_reward(ones_per_line(grid), data["row_ones"], ones_per_line(cols), data["col_ones"], beta=10)
