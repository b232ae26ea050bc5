"""LightUpPuzzle (Akari): place bulbs so every white cell is lit, no bulb sees another, and numbers count bulbs."""

from rlve_jax.gym.environments._puzzles import grid_dims, neighbours4
from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_lines


NUMBERED_FRACTIONS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]


def lit_cells(grid: list[str]) -> set[tuple[int, int]]:
    """Cells lit by the bulbs ('L'): the bulb's own cell and every white cell it sees up to a black cell."""
    rows, cols = len(grid), len(grid[0])
    lit = set()
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "L":
                lit.add((r, c))
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    a, b = r + dr, c + dc
                    while 0 <= a < rows and 0 <= b < cols and grid[a][b] in "WL":
                        lit.add((a, b))
                        a, b = a + dr, b + dc
    return lit


def bulbs_see_each_other(grid: list[str]) -> bool:
    for line in list(grid) + ["".join(col) for col in zip(*grid)]:
        for run in "".join(ch if ch in "WL" else " " for ch in line).split():
            if run.count("L") > 1:
                return True
    return False


class LightUpPuzzle(Environment):
    name = "LightUpPuzzle"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty, "numbered_fraction": f} for f in NUMBERED_FRACTIONS]

    def sample(self, params, rng):
        while True:
            rows, cols = grid_dims(rng, params["MAX_N_M"])
            density = rng.uniform(0.6, 0.95)  # the catalog's black-cell density
            grid = [["B" if rng.random() < density else "W" for _ in range(cols)] for _ in range(rows)]
            whites = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "W"]
            if whites:
                break
        rng.shuffle(whites)
        for r, c in whites:  # a bulb on every cell still dark: nothing sees it, and in the end all is lit
            if (r, c) not in lit_cells(["".join(row) for row in grid]):
                grid[r][c] = "L"
        solution = ["".join(row) for row in grid]
        blacks = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "B"]
        for r, c in rng.sample(blacks, int(len(blacks) * params["numbered_fraction"])):
            grid[r][c] = str(sum(solution[a][b] == "L" for a, b in neighbours4(r, c, rows, cols)))
        answer = ["".join(row) for row in grid]
        return {"puzzle": [line.replace("L", "W") for line in answer], "reference": "\n".join(answer)}

    def prompt(self, data):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        return (
            f"You are given a {rows} x {cols} grid. 'W' is a white cell, 'B' a black cell, and a digit 0-4 a black "
            "cell with a number:\n" + "\n".join(puzzle) + "\n\n"
            "Place light bulbs on some white cells so that:\n"
            "1. A bulb lights its own cell and every white cell in the same row or column until a black cell (or the "
            "border) blocks the way. Every white cell must be lit.\n"
            "2. No bulb may light another bulb (no two bulbs see each other).\n"
            "3. A numbered black cell must have exactly that many bulbs among its orthogonal neighbours.\n\n"
            f"Output Format: {rows} lines of {cols} characters: the grid with every bulb cell changed from 'W' to "
            "'L' and all other cells unchanged."
        )

    def score(self, data, answer):
        puzzle = data["puzzle"]
        rows, cols = len(puzzle), len(puzzle[0])
        grid = parse_lines(answer)
        if len(grid) != rows or any(len(line) != cols for line in grid):
            raise FormatError("wrong grid shape")
        if any(g != p and not (p == "W" and g == "L")
               for p_row, g_row in zip(puzzle, grid) for p, g in zip(p_row, g_row)):
            return INVALID
        if bulbs_see_each_other(grid):
            return INVALID
        lit = lit_cells(grid)
        if any(puzzle[r][c] == "W" and (r, c) not in lit for r in range(rows) for c in range(cols)):
            return INVALID
        numbered = [(r, c) for r in range(rows) for c in range(cols) if puzzle[r][c].isdigit()]
        satisfied = sum(sum(grid[a][b] == "L" for a, b in neighbours4(r, c, rows, cols)) == int(puzzle[r][c])
                        for r, c in numbered)
        return fraction_reward(satisfied, len(numbered), beta=10)
