"""StarBattle: one star per row, at most one per column, no two stars touching, never on an X cell."""

import random

from rlve_jax.gym.environments._common import INVALID, parse_char_grid
from rlve_jax.gym.env import Environment


X_DENSITIES = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9]


def planted_columns(rng: random.Random, rows: int, cols: int) -> list[int] | None:
    """A star column per row: distinct, and 2+ apart in neighbouring rows (randomised backtracking)."""
    chosen: list[int] = []

    def place(row: int) -> bool:
        if row == rows:
            return True
        order = list(range(cols))
        rng.shuffle(order)
        for c in order:
            if c not in chosen and (not chosen or abs(c - chosen[-1]) >= 2):
                chosen.append(c)
                if place(row + 1):
                    return True
                chosen.pop()
        return False

    return chosen if place(0) else None


class StarBattle(Environment):
    name = "StarBattle"

    def levels(self, difficulty):
        return [{"MAX_N_M": 4 + difficulty, "sparsity": s} for s in X_DENSITIES]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        stars = None
        while stars is None:  # e.g. 3 x 3 has no placement
            rows = rng.randint(2, top)
            cols = rng.randint(max(3, rows), top)
            stars = planted_columns(rng, rows, cols)
        grid = [["X" if rng.random() < params["sparsity"] else "." for _ in range(cols)] for _ in range(rows)]
        for r, c in enumerate(stars):
            grid[r][c] = "*"
        return {"grid": ["".join(row).replace("*", ".") for row in grid],
                "reference": "\n".join("".join(row) for row in grid)}

    def prompt(self, data):
        grid = data["grid"]
        rows, cols = len(grid), len(grid[0])
        return (
            f"You are given a {rows} x {cols} grid; 'X' marks a blocked cell and '.' a free cell:\n"
            + "\n".join(grid) + "\n\n"
            "Put stars on free cells so that every row contains exactly one star, every column contains at most one "
            "star, and no two stars touch each other, not even diagonally.\n\n"
            f"Output Format: {rows} lines, each with {cols} characters and no separators: the grid with '*' on the "
            "cells holding a star and all other cells unchanged."
        )

    def score(self, data, answer):
        grid = data["grid"]
        rows, cols = len(grid), len(grid[0])
        marks = parse_char_grid(answer, rows, cols, "X.*")
        if any((g == "X") != (m == "X") for g_row, m_row in zip(grid, marks) for g, m in zip(g_row, m_row)):
            return INVALID
        stars = [(r, c) for r in range(rows) for c in range(cols) if marks[r][c] == "*"]
        if sorted(r for r, _ in stars) != list(range(rows)) or len({c for _, c in stars}) != len(stars):
            return 0.0  # not one star per row, or two in a column
        return float(all(abs(c1 - c2) > 1 for (_, c1), (_, c2) in zip(stars, stars[1:])))  # rows r and r+1
