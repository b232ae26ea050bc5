"""Helpers shared by the classical-algorithms batch: growth rules, answer parsers, reward shapes."""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from rlve_jax.env import (Environment, FormatError, fraction_reward, grow, parse_int, parse_ints, parse_lines,
                          positional_match_reward, ratio_reward)

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


class TwoWordAnswer(Environment):
    """Answers that are one of two words (a game's winner, Yes/No): exact 1/0, any other word -0.5."""

    words: tuple[str, str] = ("", "")

    def draw_with_answer(self, rng: random.Random, draw: Callable[[], Any],
                         first_word_holds: Callable[[Any], bool]) -> tuple[Any, str]:
        """Pick the answer 50/50 first, then redraw the instance until it has that answer."""
        answer = rng.choice(self.words)
        while True:
            instance = draw()
            if self.words[not first_word_holds(instance)] == answer:
                return instance, answer

    def score(self, data, answer):
        word = answer.strip()
        if word not in self.words:
            return INVALID
        return float(word == data["reference"])

    def perturb(self, problem, answer):
        return self.words[answer == self.words[0]]


class PermutationAnswer(Environment):
    """Answers that must be a permutation of 1..N (else -0.5), scored by positional match with data["gold"]."""

    beta = 10

    def score(self, data, answer):
        order = parse_ints(answer)
        if sorted(order) != list(range(1, len(data["gold"]) + 1)):
            return INVALID
        return positional_match_reward(order, data["gold"], self.beta)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))

    def perturb(self, problem, answer):
        tokens = answer.split()
        return " ".join(tokens[1:] + tokens[:1])  # the same labels in a wrong order


def sequence_score(answer: str, gold: Sequence[int], beta: float, wrong_length: float = INVALID) -> float:
    """Positional match against `gold` for integer sequences; `wrong_length` when the length differs."""
    values = parse_ints(answer)
    if len(values) != len(gold):
        return wrong_length
    return positional_match_reward(values, gold, beta)


def parse_letters(answer: str, alphabet: str) -> str:
    """A move string over `alphabet` (white space ignored); any other character is a format error."""
    letters = "".join(answer.split())
    if any(ch not in alphabet for ch in letters):
        raise FormatError("unexpected character")
    return letters


def parse_pair(text: str) -> tuple[int, int]:
    """Exactly two integers; anything else is a format error."""
    values = parse_ints(text)
    if len(values) != 2:
        raise FormatError("expected two integers")
    return values[0], values[1]


def parse_pairs(answer: str) -> list[tuple[int, int]]:
    """One pair of integers per non-empty line."""
    return [parse_pair(line) for line in parse_lines(answer)]


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
