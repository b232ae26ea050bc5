"""CountdownClose (held-out): an expression over the given numbers that comes as close as possible to a target.

The original evaluated the model's expression with `eval`, so a power tower built from the
problem's own numbers (e.g. `7**5**8**7*1`) hung the worker. Here the answer goes through a
restricted parser (integers, + - * /, parentheses; no `**`) and is evaluated exactly.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from fractions import Fraction

import numpy as np

from rlve_jax.gym.environments._formulas import Arithmetic
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID

MAX_OPERAND_CHOICES = (8, 16, 24, 32, 40, 48)
SEARCHED_OPERANDS = 6  # the best reachable value is precomputed up to this many operands
VALUE_BUDGET = 150_000  # values tabulated before an exact-hit search for more operands gives up
MAX_SIDE = 5  # operands per side of that search's splits
CHAIN_BOUND = 10_000  # partial values of the many-operand reference stay within +-this


class _Exhausted(Exception):
    """The deterministic work budget of a search ran out."""


class ExpressionSearch:
    """Values reachable from subsets of the numbers, combined by a meet-in-the-middle lookup.

    value_sets[mask] maps each (float) value made from exactly the numbers in `mask` to how it
    was made, so the best expression can be rebuilt. Floats are only used to rank candidates;
    the chosen expression is re-evaluated exactly.
    """

    def __init__(self, numbers: list[int], budget: int | None = None):
        self.numbers = numbers
        self.budget = budget
        self.spent = 0
        self.value_sets: dict[int, dict[float, tuple | None]] = {}
        self.sorted_values: dict[int, list[float]] = {}

    def values(self, mask: int) -> dict[float, tuple | None]:
        if mask in self.value_sets:
            return self.value_sets[mask]
        if mask & (mask - 1) == 0:
            result: dict[float, tuple | None] = {float(self.numbers[mask.bit_length() - 1]): None}
        else:
            if self.budget is not None and self.spent > self.budget:
                raise _Exhausted
            result = {}
            low = mask & -mask
            sub = (mask - 1) & mask
            while sub:
                if sub & low:
                    rest = mask ^ sub
                    left, right = self.values(sub), self.values(rest)
                    for a in left:
                        for b in right:  # inlined _combinations: this loop is the hot spot
                            if (v := a + b) not in result:
                                result[v] = ("+", sub, a, rest, b)
                            if (v := a - b) not in result:
                                result[v] = ("-", sub, a, rest, b)
                            if (v := b - a) not in result:
                                result[v] = ("-", rest, b, sub, a)
                            if (v := a * b) not in result:
                                result[v] = ("*", sub, a, rest, b)
                            if b and (v := a / b) not in result:
                                result[v] = ("/", sub, a, rest, b)
                            if a and (v := b / a) not in result:
                                result[v] = ("/", rest, b, sub, a)
                sub = (sub - 1) & mask
            self.spent += len(result)
        self.value_sets[mask] = result
        return result

    def closest(self, target: int, max_side: int, stop_at_exact: bool) -> tuple[float, str] | None:
        """(float gap, expression) of the closest value over all splits whose sides have <= max_side numbers."""
        n = len(self.numbers)
        full = (1 << n) - 1
        splits = [(sub, full ^ sub) for sub in range(1, full) if sub & 1
                  and max(bin(sub).count("1"), n - bin(sub).count("1")) <= max_side]
        splits.sort(key=lambda s: -min(bin(s[0]).count("1"), bin(s[1]).count("1")))  # cheap, balanced splits first
        best: tuple[float, tuple] | None = None
        try:
            for left_mask, right_mask in splits:
                small, big = sorted((left_mask, right_mask), key=lambda m: len(self.values(m)))
                for a in self.values(small):
                    for value, how in self._nearest(a, small, big, target):
                        gap = abs(value - target)
                        if best is None or gap < best[0]:
                            best = (gap, how)
                    if stop_at_exact and best[0] < 1e-9:
                        raise _Exhausted  # nothing can beat an exact hit
        except _Exhausted:
            pass
        return None if best is None else (best[0], self._render(best[1], top=True))

    def _nearest(self, a: float, a_mask: int, b_mask: int, target: int):
        """Candidate (value, how) pairs a op b that can be closest to target.

        Every op is monotone in b on each side of b = 0, so the best b is a neighbour of the
        b that would hit the target exactly, or an end of one of the two monotone pieces.
        """
        values = self.sorted_values.get(b_mask)
        if values is None:
            values = self.sorted_values[b_mask] = sorted(self.values(b_mask))
        wanted = [target - a, a - target, target + a, target * a]
        if a:
            wanted.append(target / a)
        if target:
            wanted.append(a / target)
        positions = {0, len(values) - 1}
        zero = bisect_left(values, 0.0)
        positions.update((zero - 1, zero))
        for w in wanted:
            i = bisect_left(values, w)
            positions.update((i - 1, i))
        for i in positions:
            if 0 <= i < len(values):
                yield from _combinations(a, values[i], a_mask, b_mask)

    def _render(self, how: tuple | None, top: bool = False, leaf: int = 0) -> str:
        if how is None:
            return str(self.numbers[leaf.bit_length() - 1])
        op, left_mask, left, right_mask, right = how
        text = (self._render(self.values(left_mask)[left], leaf=left_mask) + f" {op} "
                + self._render(self.values(right_mask)[right], leaf=right_mask))
        return text if top else f"({text})"


def _combinations(a: float, b: float, a_mask: int, b_mask: int):
    """All (value, how) results of one operation between a (from a_mask) and b (from b_mask)."""
    yield a + b, ("+", a_mask, a, b_mask, b)
    yield a - b, ("-", a_mask, a, b_mask, b)
    yield b - a, ("-", b_mask, b, a_mask, a)
    yield a * b, ("*", a_mask, a, b_mask, b)
    if b:
        yield a / b, ("/", a_mask, a, b_mask, b)
    if a:
        yield b / a, ("/", b_mask, b, a_mask, a)


def exact_value(expression: str) -> Fraction:
    return Arithmetic(expression).value()


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def chain_expression(numbers: list[int], target: int, bound: int) -> str | None:
    """An expression (((x1 op x2) op x3) ...) in the given order equal to the target, every partial value an
    integer in [-bound, bound] (exact division only), or None.

    With many operands exact hits abound but a meet-in-the-middle search cannot tabulate them; this one keeps
    the set of values each prefix reaches (a bit mask over [-bound, bound]) and walks back from the target.
    """
    layers = [np.zeros(2 * bound + 1, dtype=bool)]
    layers[0][numbers[0] + bound] = True
    for x in numbers[1:]:
        values = np.flatnonzero(layers[-1]) - bound
        nonzero = values[values != 0]
        reached = np.concatenate([values + x, values - x, x - values, values * x, values[values % x == 0] // x,
                                  x // nonzero[x % nonzero == 0]])
        layers.append(np.zeros(2 * bound + 1, dtype=bool))
        layers[-1][reached[np.abs(reached) <= bound] + bound] = True
    if abs(target) > bound or not layers[-1][target + bound]:
        return None
    steps, value = [], target  # (op, x, reversed) from the last number back
    for x, before in zip(numbers[:0:-1], layers[-2::-1]):
        options = [(value - x, "+", False), (value + x, "-", False), (x - value, "-", True), (value * x, "/", False)]
        if value % x == 0:
            options.append((value // x, "*", False))
        if value and x % value == 0:
            options.append((x // value, "/", True))
        value, op, flipped = next((v, op, f) for v, op, f in options if abs(v) <= bound and before[v + bound])
        steps.append((op, x, flipped))
    text, precedence = str(numbers[0]), 3
    for op, x, flipped in reversed(steps):  # parentheses only where precedence or order needs them
        if flipped:
            inner = f"({text})" if precedence <= _PRECEDENCE[op] else text
            text = f"{x} {op} {inner}"
        else:
            inner = f"({text})" if precedence < _PRECEDENCE[op] else text
            text = f"{inner} {op} {x}"
        precedence = _PRECEDENCE[op]
    return text


class CountdownClose(Environment):
    name = "CountdownClose"
    size_keys = ("num_operands",)

    def levels(self, difficulty):
        return [{"num_operands": 3 + difficulty, "max_operand": m} for m in MAX_OPERAND_CHOICES]

    def sample(self, params, rng):
        n, high = params["num_operands"], params["max_operand"]
        numbers = [rng.randint(1, high) for _ in range(n)]
        target = rng.randint(0, 10 * high)
        data = {"numbers": numbers, "target": target, "threshold": 1.0}
        if n <= SEARCHED_OPERANDS:
            search = ExpressionSearch(numbers)
            # Balanced splits are cheap and usually hit the target; only then search them all.
            gap_found, expression = search.closest(target, max_side=min(n - 1, 4), stop_at_exact=True)
            if gap_found >= 1e-9 and n - 1 > 4:
                _, expression = search.closest(target, max_side=n - 1, stop_at_exact=False)
            gap = abs(exact_value(expression) - target)
            data["threshold"] = float(1 / (1 + gap))
            data["reference"] = expression
        return data

    def prompt(self, data):
        numbers = " ".join(map(str, data["numbers"]))
        return (
            f"You are given the numbers {numbers} and the target {data['target']}.\n"
            "Write an arithmetic expression that uses each given number exactly once (as many times as it is "
            "listed) and the operators +, -, *, / with parentheses as needed, so that its value is as close as "
            "possible to the target. Division is exact (fractions are allowed); you may not concatenate numbers "
            "or use any other operation.\n\n"
            "Output Format: a single arithmetic expression, for example (3 + 5) * 2 - 7"
        )

    def score(self, data, answer):
        if not answer.strip():
            return INVALID  # as the original: an empty expression is invalid (-0.5), not a format error
        expression = Arithmetic(answer)  # unparseable or disallowed syntax: -1
        if Counter(expression.literals) != Counter(data["numbers"]):
            return INVALID
        try:
            value = expression.value()
        except ZeroDivisionError:  # a non-finite value
            return INVALID
        return float(1 / (1 + abs(value - data["target"])))

    def pass_threshold(self, data):
        return data["threshold"]

    def reference(self, problem):
        data = problem.data
        if "reference" in data:
            return data["reference"]
        if len(data["numbers"]) <= 2 * MAX_SIDE:
            found = ExpressionSearch(data["numbers"], budget=VALUE_BUDGET).closest(
                data["target"], max_side=MAX_SIDE, stop_at_exact=True)
            if found is not None and exact_value(found[1]) == data["target"]:
                return found[1]
        return chain_expression(data["numbers"], data["target"], bound=CHAIN_BOUND)
