"""Helpers shared by the classical-algorithms batch: growth rules, answer parsers, reward shapes."""

from __future__ import annotations

import random
from typing import Callable, Sequence

from rlve_jax.env import FormatError, fraction_reward, grow, parse_int, parse_ints, parse_lines, ratio_reward

INVALID = -0.5  # the usual reward for a parseable but infeasible answer


def grow_11(start: int, difficulty: int) -> int:
    """The original's most common controller rule x <- floor(1.1 x + 1), applied `difficulty` times."""
    return grow(start, lambda x: int(1.1 * x + 1), difficulty)


def count_score(answer: str, reference: int, beta: float = 10) -> float:
    """(min/max)^beta for a counting answer; a negative answer is a format error."""
    value = parse_int(answer)
    if value < 0:
        raise FormatError("negative count")
    return ratio_reward(value, reference, beta)


def exact_int_score(answer: str, reference: int) -> float:
    """Binary: 1 for the exact integer, 0 otherwise."""
    return float(parse_int(answer) == reference)


def word_score(answer: str, gold: str, words: Sequence[str]) -> float:
    """Binary choice between fixed words (e.g. winners); any other word is invalid (-0.5)."""
    word = answer.strip()
    if word not in words:
        return INVALID
    return float(word == gold)


def parse_letters(answer: str, alphabet: str) -> str:
    """A move string over `alphabet` (white space ignored); any other character is a format error."""
    letters = "".join(answer.split())
    if any(ch not in alphabet for ch in letters):
        raise FormatError("unexpected character")
    return letters


def parse_pairs(answer: str) -> list[tuple[int, int]]:
    """One pair of integers per non-empty line; anything else is a format error."""
    pairs = []
    for line in parse_lines(answer):
        values = parse_ints(line)
        if len(values) != 2:
            raise FormatError("expected two integers per line")
        pairs.append((values[0], values[1]))
    return pairs


def parse_grid(answer: str, rows: int, cols: int) -> list[list[int]]:
    """An integer matrix of an exact shape; a wrong shape is a format error (-1)."""
    lines = parse_lines(answer)
    if len(lines) != rows:
        raise FormatError("wrong number of rows")
    grid = [parse_ints(line) for line in lines]
    if any(len(row) != cols for row in grid):
        raise FormatError("wrong shape")
    return grid


def parse_indices(answer: str, n: int, base: int = 0) -> list[int] | None:
    """A strictly increasing list of indices in [base, base + n), shifted to start at 0; None if it is not one."""
    indices = [i - base for i in parse_ints(answer)]
    if any(not 0 <= i < n for i in indices) or any(a >= b for a, b in zip(indices, indices[1:])):
        return None
    return indices


def grid_match_reward(grid: Sequence[Sequence[int]], target: Sequence[Sequence[int]], beta: float) -> float:
    """(fraction of cells equal to the target)^beta for grids of the same shape."""
    cells = [a == b for row, goal in zip(grid, target) for a, b in zip(row, goal)]
    return fraction_reward(sum(cells), sum(len(row) for row in target), beta)


def grid_text(grid: Sequence[Sequence[object]]) -> str:
    """One line per row, cells separated by single spaces."""
    return "\n".join(" ".join(map(str, row)) for row in grid)


def random_grid(rng: random.Random, rows: int, cols: int, first: int = 1) -> list[list[int]]:
    """The numbers first .. first + rows*cols - 1 in random order, as a grid."""
    cells = list(range(first, first + rows * cols))
    rng.shuffle(cells)
    return [cells[i * cols:(i + 1) * cols] for i in range(rows)]


def scramble(
    rng: random.Random,
    start: list[list[int]],
    steps: int,
    random_move: Callable[[random.Random, list[list[int]]], object],
    apply_move: Callable[[list[list[int]], object], object],
    attempts: int = 100,
) -> tuple[list[list[int]], list] | None:
    """Apply `steps` random moves (apply_move changes the grid in place), redrawing until the target differs
    from the start (so no empty answer wins).

    None if every attempt came back to the start (e.g. four quarter turns of the only possible square).
    """
    for _ in range(attempts):
        grid, moves = [row[:] for row in start], []
        for _ in range(steps):
            move = random_move(rng, grid)
            apply_move(grid, move)
            moves.append(move)
        if grid != start:
            return grid, moves
    return None
