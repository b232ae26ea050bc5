"""CountdownEqual: an arithmetic expression using each given number once that equals the target.

The answer is parsed with a whitelisted AST walk and evaluated exactly with fractions; the
original's eval ran `**` towers of the problem's own numbers, which are a format error here.
"""

import ast
from fractions import Fraction

from rlve_jax.gym.env import Environment, FormatError

MAX_EXPRESSION_CHARS = 1000
SEARCH_BUDGET = 5_000  # multisets per reachability search; beyond it the target is redrawn
_ALLOWED_CHARS = frozenset("0123456789+-*/() \t\n")
_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
              ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def _combinations(a: tuple[int, str, bool], b: tuple[int, str, bool]) -> list[tuple[int, str, bool]]:
    """Values (with expression text, and whether the text is atomic) of a op b, kept non-negative integers."""
    if a[0] < b[0]:
        a, b = b, a
    (x, ex, _), (y, ey, y_atomic) = a, b
    results = [(x + y, f"({ex} + {ey})", True), (x - y, f"({ex} - {ey})", True), (x * y, f"{ex} * {ey}", False)]
    if y and x % y == 0:
        results.append((x // y, f"{ex} / {ey if y_atomic else f'({ey})'}", False))
    return results


def find_expression(numbers: list[int], target: int) -> str | None:
    """An expression over all numbers with non-negative integer intermediate values, or None.

    Depth-first search over multisets of values, remembering dead multisets; it visits at
    most SEARCH_BUDGET multisets so generation time stays bounded.
    """
    dead: set[tuple[int, ...]] = set()
    budget = [SEARCH_BUDGET]

    def search(items: list[tuple[int, str, bool]]) -> str | None:
        if len(items) == 2:
            return next((text for value, text, _ in _combinations(*items) if value == target), None)
        key = tuple(sorted(item[0] for item in items))
        if key in dead or budget[0] <= 0:
            return None
        budget[0] -= 1
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                rest = items[:i] + items[i + 1:j] + items[j + 1:]
                for combined in _combinations(items[i], items[j]):
                    found = search(rest + [combined])
                    if found is not None:
                        return found
        dead.add(key)
        return None

    if len(numbers) == 1:
        return str(numbers[0]) if numbers[0] == target else None
    return search([(n, str(n), True) for n in numbers])


def _literals_and_value(node: ast.AST, literals: list[int], depth: int = 0) -> Fraction:
    """Collect integer literals and evaluate exactly; ZeroDivisionError propagates."""
    if depth > 200:
        raise FormatError("expression nested too deeply")
    if isinstance(node, ast.Constant) and type(node.value) is int:
        literals.append(node.value)
        return Fraction(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left = _literals_and_value(node.left, literals, depth + 1)
        right = _literals_and_value(node.right, literals, depth + 1)
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _literals_and_value(node.operand, literals, depth + 1)
        return -value if isinstance(node.op, ast.USub) else value
    raise FormatError(f"unsupported syntax {type(node).__name__}")  # e.g. ** or //


class CountdownEqual(Environment):
    name = "CountdownEqual"

    def levels(self, difficulty):
        return [{"num_operands": 3 + difficulty, "max_operand": m} for m in (8, 16, 24, 32, 40, 48)]

    def sample(self, params, rng):
        while True:
            numbers = [rng.randint(1, params["max_operand"]) for _ in range(params["num_operands"])]
            target = rng.randint(0, 10 * params["max_operand"])
            expression = find_expression(numbers, target)
            if expression is not None:
                return {"numbers": numbers, "target": target, "reference": expression}

    def prompt(self, data):
        return (
            f"Using the numbers {', '.join(map(str, data['numbers']))}, create an arithmetic expression that "
            f"equals {data['target']}. You must use each number exactly once (as many times as it is listed), "
            "and you may use only the operations +, -, *, / and parentheses.\n\n"
            "Output Format: a single arithmetic expression, e.g. `(1 + 2) * 3 - 4` (without quotes or backticks)."
        )

    def score(self, data, answer):
        text = answer.strip()
        if not text:
            return -0.5  # as the original: an empty expression is invalid, not a format error
        if len(text) > MAX_EXPRESSION_CHARS or not set(text) <= _ALLOWED_CHARS:
            raise FormatError("characters other than digits, + - * / and parentheses")
        try:
            tree = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise FormatError("unparseable expression") from None
        literals: list[int] = []
        try:
            value = _literals_and_value(tree, literals)
        except ZeroDivisionError:
            value = None
        if sorted(literals) != sorted(data["numbers"]) or value is None:
            return -0.5
        return float(value == data["target"])
