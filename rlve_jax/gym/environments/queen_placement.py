"""QueenPlacement: add K non-attacking queens to a board that already holds part of an N-queens solution."""

import random

from rlve_jax.gym.environments._common import INVALID, parse_char_grid
from rlve_jax.gym.env import Environment


def random_queens(rng: random.Random, n: int) -> list[int]:
    """Column of the queen in each row: randomised backtracking, restarted when a search runs long."""
    while True:
        budget = [50 * n * n]
        cols: list[int] = []

        def place(row: int) -> bool:
            if row == n:
                return True
            budget[0] -= 1
            if budget[0] < 0:
                return False
            order = list(range(n))
            rng.shuffle(order)
            for c in order:
                if all(c != q and abs(c - q) != row - r for r, q in enumerate(cols)):
                    cols.append(c)
                    if place(row + 1):
                        return True
                    cols.pop()
            return False

        if place(0):
            return cols


def attacking(queens: list[tuple[int, int]]) -> bool:
    rows, cols = [r for r, _ in queens], [c for _, c in queens]
    diagonals, anti = [r - c for r, c in queens], [r + c for r, c in queens]
    return any(len(set(line)) != len(line) for line in (rows, cols, diagonals, anti))


class QueenPlacement(Environment):
    name = "QueenPlacement"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        cols = random_queens(rng, n)
        removed = sorted(rng.sample(range(n), rng.randint(1, n)))
        k = rng.randint(1, max(1, len(removed) // 2))
        board = [["Q" if c == cols[r] and r not in removed else "." for c in range(n)] for r in range(n)]
        solution = [row[:] for row in board]
        for r in rng.sample(removed, k):
            solution[r][cols[r]] = "Q"
        return {"board": ["".join(row) for row in board], "K": k,
                "reference": "\n".join("".join(row) for row in solution)}

    def prompt(self, data):
        board, n = data["board"], len(data["board"])
        return (
            f"You are given a chessboard of size {n} x {n}; 'Q' marks a queen and '.' an empty square:\n"
            + "\n".join(board) + "\n\n"
            f"Place exactly {data['K']} more queens on empty squares so that no two queens on the board attack each "
            "other (no two share a row, a column or a diagonal). Keep the queens already on the board.\n\n"
            f"Output Format: {n} lines, each with {n} characters 'Q' or '.' and no separators: the final board."
        )

    def score(self, data, answer):
        board, n = data["board"], len(data["board"])
        grid = parse_char_grid(answer, n, n, "Q.")
        if any(b == "Q" and g != "Q" for b_row, g_row in zip(board, grid) for b, g in zip(b_row, g_row)):
            return INVALID
        queens = [(r, c) for r in range(n) for c in range(n) if grid[r][c] == "Q"]
        placed = len(queens) - sum(row.count("Q") for row in board)
        return float(placed == data["K"] and not attacking(queens))
