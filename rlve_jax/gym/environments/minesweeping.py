"""Minesweeping: place mines consistent with the revealed numbers of a Minesweeper board."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_char_grid
from rlve_jax.gym.environments._puzzles import grid_dims
from rlve_jax.gym.env import Environment


REVEALED_FRACTIONS = [0.6, 0.7, 0.8, 0.9, 0.95]


def mines_around(mines: list[str], r: int, c: int) -> int:
    return sum(mines[a][b] == "*" for a in range(max(0, r - 1), min(len(mines), r + 2))
               for b in range(max(0, c - 1), min(len(mines[0]), c + 2)) if (a, b) != (r, c))


class Minesweeping(Environment):
    name = "Minesweeping"

    def levels(self, difficulty):
        return [{"MAX_N_M": 4 + difficulty, "revealed_fraction": f} for f in REVEALED_FRACTIONS]

    def sample(self, params, rng):
        while True:
            rows, cols = grid_dims(rng, params["MAX_N_M"])
            density = rng.uniform(0.4, 0.7)
            mines = ["".join("*" if rng.random() < density else "." for _ in range(cols)) for _ in range(rows)]
            safe = [(r, c) for r in range(rows) for c in range(cols) if mines[r][c] == "."]
            if safe:
                break
        shown = rng.sample(safe, max(1, int(len(safe) * params["revealed_fraction"])))
        board = [["?"] * cols for _ in range(rows)]
        for r, c in shown:
            board[r][c] = str(mines_around(mines, r, c))
        return {"board": ["".join(row) for row in board], "reference": "\n".join(mines)}

    def prompt(self, data):
        board = data["board"]
        rows, cols = len(board), len(board[0])
        return (
            f"You are given a {rows} x {cols} Minesweeper board. A digit marks a revealed cell (it holds no mine) and "
            "equals the number of mines among its up to 8 neighbouring cells (including diagonals); '?' marks an "
            "unrevealed cell:\n" + "\n".join(board) + "\n\n"
            "Place mines on unrevealed cells so that every revealed number is correct.\n\n"
            f"Output Format: {rows} lines, each with {cols} characters and no separators: '*' for a mine and '.' for "
            "no mine."
        )

    def score(self, data, answer):
        board = data["board"]
        mines = parse_char_grid(answer, len(board), len(board[0]), "*.")
        revealed = [(r, c) for r, line in enumerate(board) for c, ch in enumerate(line) if ch != "?"]
        if any(mines[r][c] == "*" for r, c in revealed):
            return INVALID
        correct = sum(mines_around(mines, r, c) == int(board[r][c]) for r, c in revealed)
        return fraction_reward(correct, len(revealed), beta=10)
