"""Restricted parsers for model-written expressions, never eval/sympify: the formula language of
Differentiate and Integral (a whitelisted AST walk, evaluated by our own code in complex float64 on a
1024-point grid and in 140-digit mpmath at a few points) and the integer arithmetic of CountdownClose."""

from __future__ import annotations

import ast
import functools
import re
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from rlve_jax.gym.env import Environment, FormatError

# ---------------------------------------------------------------------------
# Restricted expressions: x, numbers, E, pi, + - * / ** (or ^), and whitelisted functions.
#
# A tree is a tuple: ("x",), ("num", Fraction), ("const", "E"|"pi"), ("neg", a),
# (op, a, b) for op in add/sub/mul/div/pow, ("call", name, a).

MAX_EXPRESSION_CHARS = 10_000  # as in the original: longer answers are a format error
MAX_EXPRESSION_DEPTH = 100
MAX_DECIMAL_EXPONENT = 50  # 1e50 is a number; 1e999999 is a format error, never expanded
_ALLOWED_CHARS = frozenset("0123456789.+-*/^()_, \t\n" "abcdefghijklmnopqrstuvwxyz" "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?([0-9]+))?", re.ASCII)
FUNCTIONS = ("sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "sinh", "cosh", "tanh",
             "asinh", "acosh", "atanh", "exp", "log", "sqrt", "Abs")
# Names sympify reads as (or rewrites into) the functions above.
_FUNCTION_ALIASES = {name: name for name in FUNCTIONS} | {"ln": "log", "abs": "Abs", "cbrt": "cbrt"}
_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
           ast.BitXor: "pow"}  # sympify reads ^ as a power
Tree = tuple


def parse_expression(text: str) -> Tree:
    """Parse a formula in x (SymPy syntax) into a tree; FormatError on anything else."""
    text = text.strip()
    if not text or len(text) > MAX_EXPRESSION_CHARS or not set(text) <= _ALLOWED_CHARS:
        raise FormatError("not a formula in the allowed syntax")
    try:
        body = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise FormatError("unparseable formula") from None
    return _convert(body, text, 0)


def _convert(node: ast.AST, text: str, depth: int) -> Tree:
    if depth > MAX_EXPRESSION_DEPTH:
        raise FormatError("formula nested too deeply")
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return (_BINARY[type(node.op)], _convert(node.left, text, depth + 1), _convert(node.right, text, depth + 1))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _convert(node.operand, text, depth + 1)
        return ("neg", inner) if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return ("num", _decimal(ast.get_source_segment(text, node) or ""))
    if isinstance(node, ast.Name):
        if node.id == "x":
            return ("x",)
        if node.id in ("E", "pi"):
            return ("const", node.id)
        raise FormatError(f"unknown symbol {node.id[:20]!r}")
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTION_ALIASES
            and not node.keywords and not any(isinstance(arg, ast.Starred) for arg in node.args)):
        name, args = _FUNCTION_ALIASES[node.func.id], [_convert(arg, text, depth + 1) for arg in node.args]
        if len(args) == 2 and name == "log":  # log(u, b) = log(u) / log(b), as in SymPy
            return ("div", ("call", "log", args[0]), ("call", "log", args[1]))
        if len(args) == 1:
            return ("pow", args[0], ("num", Fraction(1, 3))) if name == "cbrt" else ("call", name, args[0])
    raise FormatError(f"unsupported syntax {type(node).__name__}")


def _decimal(literal: str) -> Fraction:
    """An exact decimal literal with a bounded exponent (so 1e999999 is never expanded)."""
    match = _NUMBER.fullmatch(literal.replace("_", ""))
    if not match or (match.group(1) and len(match.group(1)) > 2) or len(literal) > 60:
        raise FormatError("number literal too large")
    value = Fraction(literal.replace("_", ""))
    if abs(value) > 10**MAX_DECIMAL_EXPONENT:
        raise FormatError("number literal too large")
    return value


def count_operations(tree: Tree) -> int:
    """Operation count (binary operators, negations, function calls), like SymPy's count_ops."""
    if tree[0] in ("x", "num", "const"):
        return 0
    return 1 + sum(count_operations(child) for child in tree[1:] if isinstance(child, tuple))


def _has_x(tree: Tree) -> bool:
    if tree[0] == "x":
        return True
    return any(isinstance(child, tuple) and _has_x(child) for child in tree[1:])


class _Overflow(ArithmeticError):
    """A high-precision value beyond the magnitude cap: the point is treated as invalid."""


class _Backend:
    """Arithmetic for the evaluator: complex numpy arrays (the grid) or mpmath scalars."""

    def __init__(self, lib: Any, constants: dict[str, Any], number: Callable[[Fraction], Any],
                 cap: float | None):
        self.lib, self.constants, self.number, self.cap = lib, constants, number, cap

    def fn(self, name: str):
        if self.lib is np:
            name = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
                    "atanh": "arctanh"}.get(name, name)
        return getattr(self.lib, name)

    def principal(self, z):
        """Drop signed-zero imaginary parts so branch cuts match SymPy's principal values."""
        return z + 0j if self.lib is np else z


_NUMPY = _Backend(np, {"E": np.e, "pi": np.pi}, lambda q: q.numerator / q.denominator, None)


@functools.cache
def _mpmath_backend() -> _Backend:
    """Imported on first use: only the formula environments need mpmath."""
    import mpmath

    return _Backend(mpmath, {"E": mpmath.e, "pi": mpmath.pi}, lambda q: mpmath.mpf(q.numerator) / q.denominator,
                    1e100)


PRECISE_DIGITS = 140  # with magnitudes capped at 1e100, rounding stays far below the 1e-25 test


def _call(backend: _Backend, name: str, u, du):
    """f(u) and, if du is given, f'(u)*du (for Abs, the derivative along the real x axis)."""
    f, p = backend.fn, backend.principal
    if name in ("log", "sqrt", "asin", "acos", "acosh", "atanh"):
        u = p(u)
    value = {"cot": lambda: 1 / f("tan")(u), "sec": lambda: 1 / f("cos")(u), "csc": lambda: 1 / f("sin")(u),
             "Abs": lambda: abs(u)}.get(name, lambda: f(name)(u))()
    if du is None:
        return value, None
    if name == "Abs":  # |u(x)| for real x: d|u| = Re(conj(u) u') / |u|
        return value, (u.conjugate() * du).real / value
    slope = {
        "sin": lambda: f("cos")(u), "cos": lambda: -f("sin")(u), "tan": lambda: 1 / f("cos")(u) ** 2,
        "cot": lambda: -1 / f("sin")(u) ** 2, "sec": lambda: value * f("tan")(u),
        "csc": lambda: -value / f("tan")(u), "asin": lambda: 1 / f("sqrt")(p(1 - u * u)),
        "acos": lambda: -1 / f("sqrt")(p(1 - u * u)), "atan": lambda: 1 / (1 + u * u),
        "sinh": lambda: f("cosh")(u), "cosh": lambda: f("sinh")(u), "tanh": lambda: 1 / f("cosh")(u) ** 2,
        "asinh": lambda: 1 / f("sqrt")(p(1 + u * u)), "acosh": lambda: 1 / (f("sqrt")(p(u - 1)) * f("sqrt")(p(u + 1))),
        "atanh": lambda: 1 / (1 - u * u), "exp": lambda: value, "log": lambda: 1 / u, "sqrt": lambda: 1 / (2 * value),
    }[name]()
    return value, slope * du


def _evaluate(tree: Tree, x, backend: _Backend, derivative: bool, scale: list):
    """(value, d value/dx or None) of a tree at x.

    scale[0] keeps the largest magnitude of a non-constant subexpression (the size of what
    float rounding can leave behind after cancellation); mpmath values above the cap raise.
    """
    kind = tree[0]
    zero = 0 * x
    if kind == "x":
        result = (x, zero + 1 if derivative else None)
    elif kind == "num":
        result = (zero + backend.number(tree[1]), zero if derivative else None)
    elif kind == "const":
        result = (zero + backend.constants[tree[1]], zero if derivative else None)
    elif kind == "neg":
        u, du = _evaluate(tree[1], x, backend, derivative, scale)
        result = (-u, None if du is None else -du)
    elif kind == "call":
        u, du = _evaluate(tree[2], x, backend, derivative, scale)
        result = _call(backend, tree[1], u, du)
    else:
        u, du = _evaluate(tree[1], x, backend, derivative, scale)
        v, dv = _evaluate(tree[2], x, backend, derivative, scale)
        result = _binary(kind, u, du, v, dv, backend, derivative and _has_x(tree[2]))
    for part in result:
        if part is None:
            continue
        if backend.cap is not None:
            if abs(part) > backend.cap:
                raise _Overflow
        elif _has_x(tree):
            scale[0] = np.fmax(scale[0], abs(part))
    return result


def _binary(kind: str, u, du, v, dv, backend: _Backend, variable_exponent: bool):
    if kind == "add":
        return u + v, None if du is None else du + dv
    if kind == "sub":
        return u - v, None if du is None else du - dv
    if kind == "mul":
        return u * v, None if du is None else du * v + u * dv
    if kind == "div":
        return u / v, None if du is None else (du * v - u * dv) / (v * v)
    w = backend.principal(u) ** v
    if du is None:
        return w, None
    if variable_exponent:  # d(u^v) = u^v (v' log u + v u'/u)
        return w, w * (dv * backend.fn("log")(backend.principal(u)) + v * du / u)
    return w, v * backend.principal(u) ** (v - 1) * du


GRID = np.linspace(-2.0, 2.0, 1024)


def grid_values(tree: Tree, derivative: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Complex values (or x-derivatives) on the 1024-point grid over [-2, 2], and the rounding scale."""
    scale = [np.zeros(GRID.shape)]
    with np.errstate(all="ignore"):
        value, slope = _evaluate(tree, GRID.astype(complex), _NUMPY, derivative, scale)
    return (slope if derivative else value), scale[0]


def _precise(tree: Tree, x: float, derivative: bool):
    """The value (or x-derivative) at x with PRECISE_DIGITS digits, or None where undefined."""
    backend = _mpmath_backend()
    mpmath = backend.lib
    try:
        with mpmath.workdps(PRECISE_DIGITS):
            value, slope = _evaluate(tree, mpmath.mpc(x), backend, derivative, [])
            result = slope if derivative else value
            return result if mpmath.isfinite(result) else None
    except (ArithmeticError, ValueError, OverflowError):
        return None


def formulas_agree(answer: Tree, reference: Tree, differentiate_answer: bool) -> bool:
    """Is (d/dx of) `answer` identically `reference` on [-2, 2]?

    The original asked SymPy to decide whether the difference D is zero and fell back to
    |D| <= 1e-5 at >= 256 of the 1024 grid points. Here the grid test runs first (with a
    rounding allowance for large intermediate values); an equality test in 140-digit
    arithmetic at 16 of the valid points then stands in for SymPy's symbolic decision, so
    near misses such as `F + 1e-7` fail as they did there.
    """
    ours, our_scale = grid_values(answer, differentiate_answer)
    theirs, their_scale = grid_values(reference)
    with np.errstate(all="ignore"):
        difference = np.abs(ours - theirs)
        valid = np.isfinite(difference)
        allowance = 1e-5 + 1e-10 * np.fmax(our_scale, their_scale)
    if np.any(difference[valid] > allowance[valid]) or np.count_nonzero(valid) < 256:
        return False
    indices = np.flatnonzero(valid)
    checked = 0
    for i in indices[np.linspace(0, len(indices) - 1, 16).astype(int)]:
        mine, exact = _precise(answer, float(GRID[i]), differentiate_answer), _precise(reference, float(GRID[i]), False)
        if mine is None or exact is None:
            continue
        checked += 1
        if abs(mine - exact) > 1e-25 * (1 + abs(exact)):
            return False
    return checked > 0


# ---------------------------------------------------------------------------
# Differentiate and Integral: random functions of x and their shared verifier

_UNARY = ("sin", "cos", "exp", "log", "power", "shift", "scale", "divide")
_UNARY_WEIGHTS = (0.1, 0.1, 0.05, 0.05, 0.1, 0.25, 0.25, 0.1)
_BINARY_OPS = ("add", "sub", "mul", "div", "pow")
_BINARY_WEIGHTS = (0.2, 0.2, 0.3, 0.2, 0.1)


def random_function(rng, node_num: int):
    """A random SymPy expression tree in x with `node_num` nodes (leaves are x)."""
    import sympy

    x = sympy.Symbol("x")

    def unary(u):
        op = rng.choices(_UNARY, _UNARY_WEIGHTS)[0]
        if op in ("sin", "cos", "exp", "log"):
            return getattr(sympy, op)(u)
        if op == "power":  # k-th root or k-th power
            k = rng.choice((2, 3, 4))
            return u ** sympy.Rational(1, k) if rng.random() < 0.5 else u ** k
        if op == "shift":
            return u + rng.choice((-2, -1, 1, 2))
        if op == "scale":
            return u * rng.choice((-1, 1)) * rng.choice((2, 3, 4))
        return u / rng.choice((2, 3, 4))

    def binary(u, v):
        op = rng.choices(_BINARY_OPS, _BINARY_WEIGHTS)[0]
        return {"add": lambda: u + v, "sub": lambda: u - v, "mul": lambda: u * v,
                "div": lambda: u / v, "pow": lambda: u ** v}[op]()

    def build(n: int):
        if n == 1:
            return x
        if n == 2 or rng.random() < 0.5:
            return unary(build(n - 1))
        left = rng.randint(1, n - 2)
        return binary(build(left), build(n - 1 - left))

    return build(node_num)


def sample_function_and_derivative(rng, node_num: int) -> dict[str, Any]:
    """F and F' as SymPy strings, with the original's rejection rules for F'."""
    import sympy

    x = sympy.Symbol("x")
    forbidden = (sympy.zoo, sympy.nan, sympy.oo, -sympy.oo, sympy.I)
    while True:
        function = random_function(rng, node_num)
        derivative = sympy.diff(function, x)
        if (not derivative.free_symbols or function.has(*forbidden) or derivative.has(*forbidden)
                or sympy.count_ops(function) > 1000 or sympy.count_ops(derivative) > 1000):
            continue
        function_text, derivative_text = str(function), str(derivative)
        try:
            function_tree, derivative_tree = parse_expression(function_text), parse_expression(derivative_text)
        except FormatError:
            continue
        values = grid_values(derivative_tree)[0]
        finite = np.isfinite(values)
        if np.count_nonzero(finite) < len(GRID) // 2 or np.max(np.abs(values[finite])) > 1e4:
            continue
        return {"function": function_text, "derivative": derivative_text,
                "function_ops": count_operations(function_tree), "derivative_ops": count_operations(derivative_tree)}


class FormulaEnvironment(Environment):
    """Differentiate and Integral: the same random functions, parser and equivalence test."""

    integrate = False  # Integral compares d/dx of the answer with F'; Differentiate the answer itself

    def levels(self, difficulty):
        return [{"node_num": 2 + difficulty}]

    def sample(self, params, rng):
        return sample_function_and_derivative(rng, params["node_num"])

    def score(self, data, answer):
        """-1 unparseable, 0 too complex or wrong, 1 equivalent."""
        tree = parse_expression(answer)
        if count_operations(tree) > self.max_operations(data):
            return 0.0
        return float(formulas_agree(tree, parse_expression(data["derivative"]), differentiate_answer=self.integrate))

    def max_operations(self, data) -> int:
        """The original's size cap: 4x the reference's op count; max(1, .) keeps a reference that is plain `x`
        (0 operations) from rejecting every other way of writing it."""
        return 4 * max(1, data["function_ops" if self.integrate else "derivative_ops"])

    def output_format(self, data, example: str) -> str:
        """The answer syntax and the two verifier rules a solver cannot guess: exact constants and the size cap."""
        return (
            "Output Format: a single expression in x written in SymPy syntax, with explicit `*` for "
            f"multiplication and `**` for powers, e.g. `{example}`. Use only x, numbers, E, pi and the "
            "functions sin, cos, tan, exp, log, sqrt (and their inverses or hyperbolic versions).\n"
            "Constants must be exact: write 1/3 or sqrt(2), not 0.333 or 1.414 (a decimal is read as the exact "
            "number it spells, so a rounded one makes the answer wrong). The answer may use at most "
            f"{self.max_operations(data)} operations (each +, -, *, /, ** and function call counts one, and so does "
            "a sign such as the minus in -x); a longer answer scores 0."
        )


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
