"""Helpers shared by the logic-puzzle, string and geometry batch: growth rules, grid parsing, rewards."""

from __future__ import annotations

import random
from typing import Sequence

from rlve_jax.env import (MAX_ANSWER_CHARS, FormatError, fraction_reward, grow, parse_int, parse_ints, parse_lines,
                          ratio_reward)

INVALID = -0.5  # the usual reward for a parseable but infeasible answer
SPARSITIES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]  # fraction of blanked cells, one level entry each


def grow_11(start: int, difficulty: int) -> int:
    """The original's most common controller rule x <- floor(1.1 x + 1), applied `difficulty` times."""
    return grow(start, lambda x: int(1.1 * x + 1), difficulty)


def ratio_knobs(low: float, high: float, step: float = 0.1) -> list[float]:
    """A swept knob such as m in {1.0, 1.1, ..., 2.0}, rounded so the values print cleanly."""
    count = round((high - low) / step)
    return [round(low + k * step, 2) for k in range(count + 1)]


def grid_dims(rng: random.Random, max_n_m: int, low: int = 2) -> tuple[int, int]:
    """N, M ~ U[low, MAX_N_M], the usual grid-size draw."""
    return rng.randint(low, max_n_m), rng.randint(low, max_n_m)


def blank_cells(rng: random.Random, rows: int, cols: int, sparsity: float) -> list[list[int]]:
    """max(1, floor(rows*cols*sparsity)) distinct cells to hide, as [r, c] pairs."""
    count = max(1, int(rows * cols * sparsity))
    return [[k // cols, k % cols] for k in sorted(rng.sample(range(rows * cols), count))]


def neighbours4(r: int, c: int, rows: int, cols: int):
    """Orthogonal neighbours inside the grid."""
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < rows and 0 <= c + dc < cols:
            yield r + dr, c + dc


def count_score(answer: str, reference: int, beta: float = 10) -> float:
    """(min/max)^beta for a counting answer; 0 scores only against 0; negative is a format error."""
    value = parse_int(answer)
    if value < 0:
        raise FormatError("negative count")
    return ratio_reward(value, reference, beta)


def parse_char_grid(answer: str, rows: int, cols: int, alphabet: str) -> list[str]:
    """`rows` lines of exactly `cols` characters from `alphabet`; anything else is a format error."""
    lines = parse_lines(answer)
    if len(lines) != rows or any(len(line) != cols for line in lines):
        raise FormatError("wrong grid shape")
    if any(ch not in alphabet for line in lines for ch in line):
        raise FormatError("unexpected character")
    return lines


def parse_int_grid(answer: str, rows: int, cols: int) -> list[list[int]]:
    """`rows` lines of exactly `cols` integers; a wrong shape is a format error."""
    lines = parse_lines(answer)
    if len(lines) != rows:
        raise FormatError("wrong number of rows")
    grid = [parse_ints(line) for line in lines]
    if any(len(row) != cols for row in grid):
        raise FormatError("wrong number of columns")
    return grid


def line_match_reward(row_values: Sequence[int], row_targets: Sequence[int],
                      col_values: Sequence[int], col_targets: Sequence[int], beta: float) -> float:
    """(#rows and columns whose statistic hits its target / (N+M))^beta."""
    good = sum(a == b for a, b in zip(row_values, row_targets)) + sum(a == b for a, b in zip(col_values, col_targets))
    return fraction_reward(good, len(row_targets) + len(col_targets), beta)


def columns(grid: Sequence[Sequence]) -> list[list]:
    """The transpose of a rectangular grid."""
    return [list(col) for col in zip(*grid)]


def int_grid_text(grid: Sequence[Sequence[int]]) -> str:
    return "\n".join(" ".join(map(str, row)) for row in grid)


def int_grid_format(rows: int, cols: int, what: str = "the completed grid") -> str:
    return f"Output Format: {rows} lines, each with {cols} integers separated by spaces: {what}."


def drop_last_token(answer: str) -> str:
    """A wrong answer for tests where changing one value can stay correct: one value too few."""
    return answer.rsplit(None, 1)[0] if len(answer.split()) > 1 else answer + " ?"


def keeps_givens(puzzle: Sequence[Sequence], grid: Sequence[Sequence], blank) -> bool:
    """True when every non-blank cell of the puzzle is unchanged in the answer grid."""
    return all(p == blank or p == g for row_p, row_g in zip(puzzle, grid) for p, g in zip(row_p, row_g))


def palindromic_intervals(text: str):
    """Every palindromic substring as a half-open interval [l, r), by expanding around all 2n-1 centres."""
    n = len(text)
    for centre in range(2 * n - 1):
        left, right = centre // 2, centre // 2 + centre % 2
        while left >= 0 and right < n and text[left] == text[right]:
            yield left, right + 1
            left, right = left - 1, right + 1


def planted_string(rng: random.Random, length: int, alphabet: str, planted: str) -> str:
    """A random string of the given length with `planted` written at a random position."""
    text = [rng.choice(alphabet) for _ in range(length)]
    start = rng.randint(0, length - len(planted))
    text[start:start + len(planted)] = planted
    return "".join(text)


def occurrences(text: str, pattern: str) -> int:
    """Overlapping occurrences of a non-empty pattern."""
    count, start = 0, text.find(pattern)
    while start >= 0:
        count += 1
        start = text.find(pattern, start + 1)
    return count


def bounded_text(answer: str) -> str:
    """A free-text answer, refused (format error) beyond the gym's answer length limit like the parse helpers."""
    if len(answer) > MAX_ANSWER_CHARS:
        raise FormatError("answer too long")
    return answer


def parse_exact_ints(answer: str, count: int) -> list[int]:
    """Exactly `count` integers; any other count is a format error."""
    values = parse_ints(answer)
    if len(values) != count:
        raise FormatError(f"expected {count} integers")
    return values


def completed_permutation(answer: str, puzzle: Sequence[Sequence[int]], values: range, blank: int):
    """The answer grid if it holds each of `values` once and keeps every clue, else None (invalid)."""
    grid = parse_int_grid(answer, len(puzzle), len(puzzle[0]))
    if sorted(v for row in grid for v in row) != list(values) or not keeps_givens(puzzle, grid, blank):
        return None
    return grid


# -- 0/1 grids with blanks ('*'): Binario, Binario_NoAdjacencyRequirement, CampsitePuzzle

def blank_out(rng: random.Random, solution: Sequence[str], sparsity: float) -> list[str]:
    """The solution lines with the blanked cells replaced by '*'."""
    puzzle = [list(line) for line in solution]
    for r, c in blank_cells(rng, len(solution), len(solution[0]), sparsity):
        puzzle[r][c] = "*"
    return ["".join(row) for row in puzzle]


def ones_per_line(lines: Sequence[Sequence[str]]) -> list[int]:
    return [sum(ch == "1" for ch in line) for line in lines]


def counted_binary_puzzle(rng: random.Random, solution: Sequence[str], sparsity: float) -> dict:
    """Instance data for a blanked 0/1 grid whose row and column 1-counts are the clues."""
    return {"puzzle": blank_out(rng, solution, sparsity), "row_ones": ones_per_line(solution),
            "col_ones": ones_per_line(columns(solution)), "reference": "\n".join(solution)}


def binary_puzzle_intro(puzzle: Sequence[str]) -> str:
    return (f"You are given a {len(puzzle)} x {len(puzzle[0])} grid. Each cell holds 0 or 1; '*' marks a blank cell "
            "you must fill:\n" + "\n".join(puzzle) + "\n\n")


def ones_targets_text(row_ones: Sequence[int], col_ones: Sequence[int]) -> tuple[str, str]:
    return (f"Row i (from top, 0-indexed) contains exactly R[i] ones, where R = {' '.join(map(str, row_ones))}",
            f"Column j (from left, 0-indexed) contains exactly C[j] ones, where C = {' '.join(map(str, col_ones))}")


def binary_grid_format(rows: int, cols: int, what: str = "the completed grid") -> str:
    return f"Output Format: {rows} lines, each with {cols} characters 0 or 1 and no separators: {what}."


def filled_binary_grid(answer: str, puzzle: Sequence[str]) -> list[str] | None:
    """The 0/1 answer grid if it keeps every given cell, else None (invalid); shape errors raise."""
    grid = parse_char_grid(answer, len(puzzle), len(puzzle[0]), "01")
    return grid if keeps_givens(puzzle, grid, "*") else None
