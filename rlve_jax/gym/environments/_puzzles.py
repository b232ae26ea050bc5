"""Grid puzzles: size draws and blanked cells, clue checks, 0/1 grids with blanks, Latin squares, and the
shared shape of the scrambled-grid puzzles. Grid parsers and grid_text are in _common."""

from __future__ import annotations

import random
from typing import Any, Sequence

from rlve_jax.gym.environments._common import fraction_reward, parse_char_grid, parse_int_grid, sweep
from rlve_jax.gym.env import Environment

SPARSITIES = sweep(0.1, 0.9)  # fraction of blanked cells, one level entry each


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


def columns(grid: Sequence[Sequence]) -> list[list]:
    """The transpose of a rectangular grid."""
    return [list(col) for col in zip(*grid)]


def line_match_reward(row_values: Sequence[int], row_targets: Sequence[int],
                      col_values: Sequence[int], col_targets: Sequence[int], beta: float) -> float:
    """(#rows and columns whose statistic hits its target / (N+M))^beta."""
    good = sum(a == b for a, b in zip(row_values, row_targets)) + sum(a == b for a, b in zip(col_values, col_targets))
    return fraction_reward(good, len(row_targets) + len(col_targets), beta)


def grid_match_reward(grid: Sequence[Sequence[int]], target: Sequence[Sequence[int]], beta: float) -> float:
    """(fraction of cells equal to the target)^beta for grids of the same shape."""
    cells = [a == b for row, goal in zip(grid, target) for a, b in zip(row, goal)]
    return fraction_reward(sum(cells), sum(len(row) for row in target), beta)


def int_grid_format(rows: int, cols: int, what: str = "the completed grid") -> str:
    return f"Output Format: {rows} lines, each with {cols} integers separated by spaces: {what}."


def keeps_givens(puzzle: Sequence[Sequence], grid: Sequence[Sequence], blank) -> bool:
    """True when every non-blank cell of the puzzle is unchanged in the answer grid."""
    return all(p == blank or p == g for row_p, row_g in zip(puzzle, grid) for p, g in zip(row_p, row_g))


def completed_permutation(answer: str, puzzle: Sequence[Sequence[int]], values: range, blank: int):
    """The answer grid if it holds each of `values` once and keeps every clue, else None (invalid)."""
    grid = parse_int_grid(answer, len(puzzle), len(puzzle[0]))
    if sorted(v for row in grid for v in row) != list(values) or not keeps_givens(puzzle, grid, blank):
        return None
    return grid


# -- Latin squares: FutoshikiPuzzle, SkyscraperPuzzle


def random_latin_square(n: int, rng: random.Random) -> list[list[int]]:
    """A Latin square over 0..n-1: the cyclic square with rows, columns and symbols permuted."""
    rows, cols, symbols = list(range(n)), list(range(n)), list(range(n))
    rng.shuffle(rows)
    rng.shuffle(cols)
    rng.shuffle(symbols)
    return [[symbols[(r + c) % n] for c in cols] for r in rows]


def is_latin_square(grid: Sequence[Sequence[int]], n: int) -> bool:
    """Every row and column is a permutation of 0..n-1 (the shape must already be n x n)."""
    full = list(range(n))
    return (all(sorted(row) == full for row in grid)
            and all(sorted(grid[i][j] for i in range(n)) == full for j in range(n)))


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


# -- Scrambled grids: EightDigitPuzzle, NinePuzzle, TwiddlePuzzle


def random_grid(rng: random.Random, rows: int, cols: int, first: int = 1) -> list[list[int]]:
    """The numbers first .. first + rows*cols - 1 in random order, as a grid."""
    cells = list(range(first, first + rows * cols))
    rng.shuffle(cells)
    return [cells[i * cols:(i + 1) * cols] for i in range(rows)]


class ScrambledGridPuzzle(Environment):
    """Grid puzzles whose target is the start grid after `steps` random moves.

    Levels: MAX_N_M = 3 + d with the original's list of step counts; N, M ~ U[2, MAX_N_M]. Subclasses draw
    their move rules (`rules`), one random move, apply a move in place, and write the moves as the answer.
    """

    size_keys = ("MAX_N_M",)
    step_choices: tuple[int, ...] = ()
    first_cell = 1  # the grid holds first_cell .. first_cell + N*M - 1
    attempts = 100

    def rules(self, rng: random.Random, n: int, m: int) -> dict[str, Any]:
        return {}

    def random_move(self, rng: random.Random, grid: list[list[int]], rules: dict[str, Any]) -> Any:
        raise NotImplementedError

    def apply_move(self, grid: list[list[int]], move: Any, rules: dict[str, Any]) -> None:
        raise NotImplementedError

    def moves_text(self, moves: list) -> str:
        raise NotImplementedError

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty, "steps": steps} for steps in self.step_choices]

    def sample(self, params, rng):
        while True:
            n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
            rules = self.rules(rng, n, m)
            start = random_grid(rng, n, m, self.first_cell)
            scrambled = self._scramble(rng, start, params["steps"], rules)
            if scrambled:
                target, moves = scrambled
                return {"start": start, "target": target, **rules, "reference": self.moves_text(moves)}

    def _scramble(self, rng, start, steps, rules):
        """Random moves, redrawn until the target differs from the start (so no empty answer wins); None if
        every attempt came back to the start (e.g. four quarter turns of the only possible square)."""
        for _ in range(self.attempts):
            grid, moves = [row[:] for row in start], []
            for _ in range(steps):
                move = self.random_move(rng, grid, rules)
                self.apply_move(grid, move, rules)
                moves.append(move)
            if grid != start:
                return grid, moves
        return None
