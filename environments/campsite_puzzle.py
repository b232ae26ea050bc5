"""CampsitePuzzle: complete a 0/1 grid with given row/column 1-counts and no two orthogonally adjacent 1s."""

from rlve_jax.env import Environment

from ._logic_util import (INVALID, SPARSITIES, blank_cells, columns, grid_dims, keeps_givens, line_match_reward,
                          neighbours4, parse_char_grid)


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
        for r, c in blank_cells(rng, rows, cols, params["sparsity"]):
            grid[r][c] = "*"
        return {
            "puzzle": ["".join(row) for row in grid],
            "row_ones": [line.count("1") for line in solution],
            "col_ones": [col.count("1") for col in columns(solution)],
            "reference": "\n".join(solution),
        }

    def prompt(self, data):
        rows, cols = len(data["puzzle"]), len(data["puzzle"][0])
        return (
            f"You are given a {rows} x {cols} grid. Each cell holds 0 or 1; '*' marks a blank cell you must fill:\n"
            + "\n".join(data["puzzle"]) + "\n\n"
            "Fill every blank with 0 or 1 (keep the given cells) so that:\n"
            "1. No two 1s are orthogonally adjacent (sharing a side).\n"
            f"2. Row i (from top, 0-indexed) contains exactly R[i] ones, where R = {' '.join(map(str, data['row_ones']))}\n"
            f"3. Column j (from left, 0-indexed) contains exactly C[j] ones, where C = "
            f"{' '.join(map(str, data['col_ones']))}\n\n"
            f"Output Format: {rows} lines, each with {cols} characters 0 or 1 and no separators: the completed grid."
        )

    def score(self, data, answer):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        grid = parse_char_grid(answer, rows, cols, "01")
        if not keeps_givens(puzzle, grid, "*"):
            return INVALID
        if any(grid[r][c] == "1" and (c + 1 < cols and grid[r][c + 1] == "1" or r + 1 < rows and grid[r + 1][c] == "1")
               for r in range(rows) for c in range(cols)):
            return INVALID
        return line_match_reward([line.count("1") for line in grid], data["row_ones"],
                                 [col.count("1") for col in columns(grid)], data["col_ones"], beta=10)
