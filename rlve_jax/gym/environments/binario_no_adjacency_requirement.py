"""Binario_NoAdjacencyRequirement: complete a 2N x 2M 0/1 grid so every row and column is balanced."""

from rlve_jax.gym.environments._puzzles import (SPARSITIES, binary_grid_format, binary_puzzle_intro, blank_out, columns,
                                   filled_binary_grid, grid_dims)
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, grow_1p1


class Binario_NoAdjacencyRequirement(Environment):
    name = "Binario_NoAdjacencyRequirement"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(2, difficulty), "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        half_rows, half_cols = grid_dims(rng, params["MAX_N_M"])
        rows, cols = 2 * half_rows, 2 * half_cols
        grid = [[(r + c) % 2 for c in range(cols)] for r in range(rows)]  # balanced checkerboard
        for _ in range(4 * rows * cols):  # 2x2 switches keep every row and column sum (equal indices never match)
            r1, r2, c1, c2 = rng.randrange(rows), rng.randrange(rows), rng.randrange(cols), rng.randrange(cols)
            if grid[r1][c1] == grid[r2][c2] != grid[r1][c2] == grid[r2][c1]:
                for r, c in ((r1, c1), (r1, c2), (r2, c1), (r2, c2)):
                    grid[r][c] ^= 1
        solution = ["".join(map(str, row)) for row in grid]
        return {"puzzle": blank_out(rng, solution, params["sparsity"]), "reference": "\n".join(solution)}

    def prompt(self, data):
        rows, cols = len(data["puzzle"]), len(data["puzzle"][0])
        return (
            binary_puzzle_intro(data["puzzle"])
            + "Fill every blank with 0 or 1 (keep the given cells) so that every row and every column contains as "
            f"many 0s as 1s (each row has {cols // 2} ones, each column has {rows // 2} ones).\n\n"
            + binary_grid_format(rows, cols)
        )

    def score(self, data, answer):
        grid = filled_binary_grid(answer, data["puzzle"])
        if grid is None:
            return INVALID
        lines = grid + ["".join(col) for col in columns(grid)]
        return float(all(2 * line.count("1") == len(line) for line in lines))
