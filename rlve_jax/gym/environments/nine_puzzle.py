"""NinePuzzle: reach a target grid with bounded cyclic shifts of rows and columns."""

from rlve_jax.gym.environments._common import INVALID, grid_text, parse_int, parse_lines
from rlve_jax.gym.environments._puzzles import ScrambledGridPuzzle, grid_match_reward
from rlve_jax.gym.env import FormatError


def shift(grid: list[list[int]], move: list) -> None:
    """`row i s` moves row i right by s (cyclically); `column j s` moves column j down by s. In place."""
    kind, index, amount = move
    if kind == "row":
        row = grid[index]
        grid[index] = [row[(c - amount) % len(row)] for c in range(len(row))]
    else:
        column = [row[index] for row in grid]
        for r, row in enumerate(grid):
            row[index] = column[(r - amount) % len(column)]


def parse_move(line: str) -> list:
    words = line.split()
    if len(words) != 3 or words[0] not in ("row", "column"):
        raise FormatError("expected `row i s` or `column j s`")
    return [words[0], parse_int(words[1]), parse_int(words[2])]


class NinePuzzle(ScrambledGridPuzzle):
    name = "NinePuzzle"
    step_choices = tuple(range(2, 11))

    def rules(self, rng, n, m):
        return {"row_K": rng.randint(1, m - 1), "col_K": rng.randint(1, n - 1)}

    def random_move(self, rng, grid, rules):
        kind, size, bound = ("row", len(grid), rules["row_K"]) if rng.random() < 0.5 else (
            "column", len(grid[0]), rules["col_K"])
        return [kind, rng.randrange(size), rng.choice([s for s in range(-bound, bound + 1) if s])]

    def apply_move(self, grid, move, rules):
        shift(grid, move)

    def moves_text(self, moves):
        return "\n".join(f"{kind} {index} {amount}" for kind, index, amount in moves)

    def prompt(self, data):
        n, m = len(data["start"]), len(data["start"][0])
        return (
            f"You are given a {n} x {m} grid (rows 0..{n - 1}, columns 0..{m - 1}):\n{grid_text(data['start'])}\n\n"
            "You may apply these operations any number of times:\n"
            f"- `row i s`: cyclically shift row i to the right by s positions, where -{data['row_K']} <= s <= "
            f"{data['row_K']} (a negative s shifts to the left);\n"
            f"- `column j s`: cyclically shift column j down by s positions, where -{data['col_K']} <= s <= "
            f"{data['col_K']} (a negative s shifts up).\n"
            f"Transform the grid into this target grid:\n{grid_text(data['target'])}\n\n"
            "Output Format: one operation per line, in order, each written as `row i s` or `column j s`."
        )

    def score(self, data, answer):
        grid, n, m = [row[:] for row in data["start"]], len(data["start"]), len(data["start"][0])
        for line in parse_lines(answer):
            kind, index, amount = move = parse_move(line)
            size, bound = (n, data["row_K"]) if kind == "row" else (m, data["col_K"])
            if not 0 <= index < size or abs(amount) > bound:
                return INVALID
            shift(grid, move)
        return grid_match_reward(grid, data["target"], 10)
