"""VisibleLine: which lines y = A x + B show on the upper envelope (visible from y = +infinity)."""

from fractions import Fraction

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p1, parse_ints


def visible_lines(lines: list[list[int]]) -> list[int]:
    """Line i is visible iff the open set of x where it is strictly above every other line is non-empty."""
    visible = []
    for i, (a, b) in enumerate(lines):
        low, high, possible = None, None, True
        for j, (c, d) in enumerate(lines):
            if j == i:
                continue
            if a == c:
                possible = possible and b > d
                continue
            cross = Fraction(d - b, a - c)  # above line j for x > cross when a > c, for x < cross otherwise
            if a > c:
                low = cross if low is None else max(low, cross)
            else:
                high = cross if high is None else min(high, cross)
        if possible and (low is None or high is None or low < high):
            visible.append(i)
    return visible


class VisibleLine(Environment):
    name = "VisibleLine"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        lines: list[list[int]] = []
        while len(lines) < n:
            line = [rng.randint(-n, n), rng.randint(-n, n)]
            if line not in lines:
                lines.append(line)
        return {"lines": lines, "visible": visible_lines(lines)}

    def prompt(self, data):
        lines = "\n".join(f"Line {i}: y = {a}x {'-' if b < 0 else '+'} {abs(b)}"
                           for i, (a, b) in enumerate(data["lines"]))
        return (
            f"You are given {len(data['lines'])} distinct lines in the plane:\n{lines}\n\n"
            "Looking down from y = +infinity, a line is visible if some part of it of positive length is strictly "
            "above all other lines (a line that reaches the top only at single points is not visible). Find all "
            "visible lines.\n\n"
            "Output Format: a single line with the indices of the visible lines separated by spaces, in any order."
        )

    def score(self, data, answer):
        chosen = set(parse_ints(answer))
        if any(not 0 <= i < len(data["lines"]) for i in chosen):
            raise FormatError("index out of range")
        truth = set(data["visible"])
        return (len(chosen & truth) / len(chosen | truth)) ** 5

    def reference(self, problem):
        return " ".join(map(str, problem.data["visible"]))
