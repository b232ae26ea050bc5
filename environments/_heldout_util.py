"""Helpers shared by the held-out environments: growth rules, common scorers, random
structures and a restricted arithmetic parser for expression answers."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Sequence

from rlve_jax.env import FormatError, parse_int, parse_int_rows, ratio_reward

INVALID = -0.5  # the original's usual reward for a parseable but infeasible answer


def times_1_1_plus_1(x: int) -> int:
    """The controller's most common growth rule: 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, ..."""
    return int(1.1 * x + 1)


def times_1_5(x: int) -> int:
    """The controller's x <- floor(1.5 x) rule: 10, 15, 22, 33, 49, ..."""
    return int(1.5 * x)


# ---------------------------------------------------------------------------
# Scorers for single-integer answers


def score_exact(answer: str, reference: int) -> float:
    """Binary: 1 for the right integer, 0 otherwise; unparseable raises FormatError (-1)."""
    return float(parse_int(answer) == reference)


def score_mod(answer: str, reference: int, mod: int) -> float:
    """An answer modulo `mod`: outside [0, mod) is invalid (-0.5), else exact 1/0."""
    value = parse_int(answer)
    if not 0 <= value < mod:
        return INVALID
    return float(value == reference)


def score_positive_count(answer: str, reference: int, beta: float) -> float:
    """(min/max)^beta for a count that is always positive; answers <= 0 get -1."""
    value = parse_int(answer)
    if value <= 0:
        return -1.0
    return ratio_reward(value, reference, beta)


def score_count(answer: str, reference: int, beta: float) -> float:
    """(min/max)^beta for a count that may be 0 (then only 0 scores); negative answers get -1."""
    value = parse_int(answer)
    if value < 0:
        return -1.0
    return ratio_reward(value, reference, beta)


def minimization_reward(optimum: float, value: float, beta: float) -> float:
    """(optimum/value)^beta for a feasible answer of a minimisation task (value >= optimum >= 0)."""
    if value <= optimum:
        return 1.0
    return (optimum / value) ** beta


def maximization_reward(value: float, optimum: float, beta: float) -> float:
    """(value/optimum)^beta for a feasible answer of a maximisation task (0 <= value <= optimum)."""
    if value >= optimum:
        return 1.0
    return (max(value, 0) / optimum) ** beta


def distinct_in_range(values: Sequence[int], low: int, high: int) -> bool:
    """All values in [low, high] and pairwise distinct."""
    return all(low <= v <= high for v in values) and len(set(values)) == len(values)


def is_permutation(values: Sequence[int], n: int) -> bool:
    return len(values) == n and sorted(values) == list(range(n))


# ---------------------------------------------------------------------------
# Random structures


def random_tree(n: int, rng: random.Random) -> list[list[int]]:
    """Edges of a uniform-attachment random tree on vertices 0..n-1, in random order."""
    order = list(range(n))
    rng.shuffle(order)
    edges = []
    for i in range(1, n):
        u, v = order[i], order[rng.randrange(i)]
        edges.append([u, v] if rng.random() < 0.5 else [v, u])
    rng.shuffle(edges)
    return edges


def adjacency(n: int, edges: Sequence[Sequence[int]]) -> list[list[int]]:
    """Adjacency lists (neighbours in ascending order) of an undirected graph."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    return [sorted(vs) for vs in neighbours]


def bfs_tree(neighbours: list[list[int]], root: int) -> tuple[list[int], list[int]]:
    """(parent, order): BFS parents (-1 at the root and unreached vertices) and the visiting order."""
    parent, order = [-1] * len(neighbours), [root]
    seen = [False] * len(neighbours)
    seen[root] = True
    for u in order:
        for v in neighbours[u]:
            if not seen[v]:
                seen[v], parent[v] = True, u
                order.append(v)
    return parent, order


def edge_lines(edges: Sequence[Sequence[int]]) -> str:
    """One `(u, v)` or `(u, v, w)` per line."""
    return "\n".join("(" + ", ".join(map(str, e)) + ")" for e in edges) or "(no edges)"


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


def grid_text(grid: Sequence[Sequence[int]]) -> str:
    return "\n".join(" ".join(map(str, row)) for row in grid)


def parse_square(answer: str, n: int) -> list[list[int]]:
    """Exactly n lines of n integers, else a format error (the original's 'wrong shape' = -1)."""
    grid = parse_int_rows(answer)
    if len(grid) != n or any(len(row) != n for row in grid):
        raise FormatError("wrong grid shape")
    return grid


# ---------------------------------------------------------------------------
# Restricted arithmetic: parse model expressions without eval


class ArithmeticBoundError(FormatError):
    """An expression whose exponents or intermediate values exceed the allowed bounds."""


_TOKEN = re.compile(r"\s*(?:(0|[1-9][0-9]*)|(\*\*|[-+*/()]))", re.ASCII)


class Arithmetic:
    """A parsed arithmetic expression over non-negative integer literals.

    Grammar (Python precedence): sums of products of unary-signed powers of atoms;
    `**` is right-associative and only accepted with `allow_power`. The parse is kept
    in postfix form, so evaluation is iterative and bounded: every intermediate value
    (numerator and denominator) must fit in `max_bits` bits and every exponent must be
    an integer of absolute value at most `max_exponent`.
    """

    def __init__(self, text: str, *, allow_power: bool = False, max_chars: int = 2000,
                 max_depth: int = 64, max_exponent: int = 64, max_bits: int = 4096):
        if len(text) > max_chars:
            raise FormatError("expression too long")
        self.max_exponent, self.max_bits = max_exponent, max_bits
        self._tokens = self._tokenize(text.strip(), allow_power)
        self._pos, self._depth, self._max_depth = 0, 0, max_depth
        self.postfix: list[int | str] = []
        self._sum()
        if self._pos != len(self._tokens):
            raise FormatError("unexpected text after the expression")

    @property
    def literals(self) -> list[int]:
        """The integer literals in order of appearance."""
        return [t for t in self.postfix if isinstance(t, int)]

    def value(self) -> Fraction:
        """Exact value; raises ZeroDivisionError or ArithmeticBoundError."""
        stack: list[Fraction] = []
        for token in self.postfix:
            if isinstance(token, int):
                stack.append(Fraction(token))
            elif token == "neg":
                stack.append(-stack.pop())
            else:
                right, left = stack.pop(), stack.pop()
                stack.append(self._apply(token, left, right))
        return stack[0]

    # -- parsing -------------------------------------------------------------
    @staticmethod
    def _tokenize(text: str, allow_power: bool) -> list[int | str]:
        tokens: list[int | str] = []
        pos = 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if not match:
                raise FormatError(f"unexpected character at {pos}")
            number, symbol = match.groups()
            if number is not None:
                if len(number) > 100:
                    raise FormatError("number literal too long")
                tokens.append(int(number))
            elif symbol == "**" and not allow_power:
                raise FormatError("exponentiation is not allowed")
            else:
                tokens.append(symbol)
            pos = match.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        if not tokens:
            raise FormatError("empty expression")
        return tokens

    def _peek(self) -> int | str | None:
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def _enter(self) -> None:
        self._depth += 1
        if self._depth > self._max_depth:
            raise FormatError("expression nested too deeply")

    def _left_associative(self, operators: tuple[str, str], operand) -> None:
        operand()
        while self._peek() in operators:
            op = self._tokens[self._pos]
            self._pos += 1
            operand()
            self.postfix.append(op)

    def _sum(self) -> None:
        self._left_associative(("+", "-"), self._product)

    def _product(self) -> None:
        self._left_associative(("*", "/"), self._unary)

    def _unary(self) -> None:
        self._enter()
        token = self._peek()
        if token in ("+", "-"):
            self._pos += 1
            self._unary()
            if token == "-":
                self.postfix.append("neg")
        else:
            self._power()
        self._depth -= 1

    def _power(self) -> None:
        self._atom()
        if self._peek() == "**":
            self._pos += 1
            self._unary()  # right-associative, and the exponent may carry a sign
            self.postfix.append("**")

    def _atom(self) -> None:
        token = self._peek()
        if isinstance(token, int):
            self._pos += 1
            self.postfix.append(token)
        elif token == "(":
            self._enter()
            self._pos += 1
            self._sum()
            if self._peek() != ")":
                raise FormatError("unbalanced parentheses")
            self._pos += 1
            self._depth -= 1
        else:
            raise FormatError(f"unexpected token {token!r}")

    # -- evaluation ----------------------------------------------------------
    def _apply(self, op: str, left: Fraction, right: Fraction) -> Fraction:
        if op == "+":
            result = left + right
        elif op == "-":
            result = left - right
        elif op == "*":
            result = left * right
        elif op == "/":
            result = left / right  # ZeroDivisionError propagates
        else:
            if right.denominator != 1 or abs(right.numerator) > self.max_exponent:
                raise ArithmeticBoundError("exponent out of bounds")
            size = max(left.numerator.bit_length(), left.denominator.bit_length())
            if size * abs(right.numerator) > self.max_bits:
                raise ArithmeticBoundError("power too large")
            result = left ** right.numerator
        if max(result.numerator.bit_length(), result.denominator.bit_length()) > self.max_bits:
            raise ArithmeticBoundError("intermediate value too large")
        return result


def divisor_counts(limit: int) -> list[int]:
    """d(0..limit) by a sieve, with d(0) = 0."""
    counts = [0] * (limit + 1)
    for d in range(1, limit + 1):
        for multiple in range(d, limit + 1, d):
            counts[multiple] += 1
    return counts


def perturb_count(self, problem, answer: str) -> str:
    """Environment.perturb for (min/max)^beta counts: ref + 1 passes the 1e-6 accuracy tolerance once the
    count exceeds ~1e7 (as in the original), so tests use a clearly wrong count instead."""
    return str(2 * int(answer) + 1)


def set_text(low: int, high: int) -> str:
    """{low, ..., high} written out in full when short."""
    if high - low < 4:
        return "{" + ", ".join(map(str, range(low, high + 1))) + "}"
    return f"{{{low}, {low + 1}, ..., {high}}}"
