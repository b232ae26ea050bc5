"""MagicSquarePuzzle: complete a partially erased N x N magic square (orders N = 2 mod 4 are skipped)."""

import random

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text
from rlve_jax.gym.environments._puzzles import SPARSITIES, blank_cells, columns, completed_permutation, int_grid_format
from rlve_jax.gym.env import Environment


def magic_order(difficulty: int) -> int:
    """3, 4, 5, 7, 8, 9, 11, ...: +1 per level, skipping singly even orders."""
    n = 3
    for _ in range(difficulty):
        n += 1
        if n % 4 == 2:
            n += 1
    return n


def base_square(n: int) -> list[list[int]]:
    """Siamese method for odd n; complemented block diagonals for n divisible by 4."""
    if n % 2:
        square = [[0] * n for _ in range(n)]
        r, c = 0, n // 2
        for value in range(1, n * n + 1):
            square[r][c] = value
            if square[(r - 1) % n][(c + 1) % n]:
                r = (r + 1) % n
            else:
                r, c = (r - 1) % n, (c + 1) % n
        return square
    return [[n * n - (i * n + j) if i % 4 == j % 4 or i % 4 + j % 4 == 3 else i * n + j + 1
             for j in range(n)] for i in range(n)]


def scrambled_square(rng: random.Random, n: int) -> list[list[int]]:
    """Magic-preserving transforms: a centre-symmetric row/column permutation, a rotation or mirror, complement."""
    order = list(range(n // 2))
    rng.shuffle(order)
    perm = list(range(n))
    for i, j in enumerate(order):
        flip = rng.random() < 0.5
        perm[i], perm[n - 1 - i] = (n - 1 - j, j) if flip else (j, n - 1 - j)
    base = base_square(n)
    square = [[base[perm[i]][perm[j]] for j in range(n)] for i in range(n)]
    for _ in range(rng.randrange(4)):
        square = [list(row) for row in zip(*square[::-1])]  # rotate by 90 degrees
    if rng.random() < 0.5:
        square = [row[::-1] for row in square]
    if rng.random() < 0.5:
        square = [[n * n + 1 - v for v in row] for row in square]
    return square


def magic_lines(square: list[list[int]]) -> list[list[int]]:
    n = len(square)
    return square + columns(square) + [[square[i][i] for i in range(n)], [square[i][n - 1 - i] for i in range(n)]]


class MagicSquarePuzzle(Environment):
    name = "MagicSquarePuzzle"

    def levels(self, difficulty):
        return [{"N": magic_order(difficulty), "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        n = params["N"]
        square = scrambled_square(rng, n)
        puzzle = [row[:] for row in square]
        for r, c in blank_cells(rng, n, n, params["sparsity"]):
            puzzle[r][c] = 0
        return {"puzzle": puzzle, "reference": grid_text(square)}

    def prompt(self, data):
        n = len(data["puzzle"])
        return (
            f"Complete the following {n} x {n} magic square; 0 marks an empty cell:\n"
            f"{grid_text(data['puzzle'])}\n\n"
            f"Fill the empty cells so that every integer from 1 to {n * n} appears exactly once and every row, every "
            f"column and both main diagonals sum to {n * (n * n + 1) // 2}. Keep the given numbers.\n\n"
            + int_grid_format(n, n, "the completed square")
        )

    def score(self, data, answer):
        puzzle = data["puzzle"]
        n = len(puzzle)
        square = completed_permutation(answer, puzzle, range(1, n * n + 1), 0)
        if square is None:
            return INVALID
        target = n * (n * n + 1) // 2
        return fraction_reward(sum(sum(line) == target for line in magic_lines(square)), 2 * n + 2, beta=10)
