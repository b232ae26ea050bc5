"""The environment contract: problems, verdicts, answer extraction, reward helpers.

An environment is a pure problem generator at an integer difficulty plus an
algorithmic verifier. `generate(difficulty, seed)` is deterministic on any machine;
`verify(problem, output)` never raises and never runs model text as code.
This module is plain Python (no JAX) so worker processes stay light.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import random
import re
import sys
from pathlib import Path
from typing import Any, ClassVar, Iterator, Sequence

FORMAT_ERROR_REWARD = -1.0
INVALID = -0.5  # the usual reward for a parseable but infeasible answer (the catalog says where it differs)
# Accuracy is exact: reward >= the problem's pass threshold, with no tolerance. The original's 1e-6 let a wrong
# count pass once (min/max)^beta is within 1e-6 of 1 (answer + 1 at counts above ~10^7); the shared reward
# helpers below keep every wrong answer strictly below 1, and the few environments whose rewards are
# floating-point measurements (RootExtraction, SmallestCircle, PolynomialMinimum) set their own threshold.
ALMOST_ONE = math.nextafter(1.0, 0.0)  # the largest reward below 1: a wrong answer's cap
FORMAT_TOLERANCE = 1e-6  # the original's format rule: format_ok = reward > -1 + 1e-6
MAX_ANSWER_CHARS = 100_000  # longer extracted answers are a format error, never parsed
# Each environment's measured top level (experiments/find_top_levels.py writes it, with its budgets).
TOP_LEVELS_PATH = Path(__file__).with_name("top_levels.json")

# ---------------------------------------------------------------------------
# Records


@contextlib.contextmanager
def long_int_text() -> Iterator[None]:
    """int <-> str of up to MAX_ANSWER_CHARS digits inside the block (Python's guard stops at 4,300).

    For environments whose exact answers are legitimately long (`Environment.long_answers`) and for
    our own problem records; everywhere else the guard keeps a 100k-digit answer from costing
    seconds of arithmetic in a verifier.
    """
    previous = sys.get_int_max_str_digits()
    if 0 < previous < MAX_ANSWER_CHARS:
        sys.set_int_max_str_digits(MAX_ANSWER_CHARS)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(previous)


@dataclasses.dataclass(frozen=True)
class Problem:
    """One generated problem: everything a verifier needs, JSON-serialisable."""

    env: str
    difficulty: int
    seed: int
    prompt: str
    params: dict[str, Any]  # the difficulty-level parameter setting it was drawn from
    data: dict[str, Any]  # instance data (JSON-native: lists, not tuples)
    pass_threshold: float = 1.0  # accuracy = reward >= pass_threshold

    def to_json(self) -> str:
        with long_int_text():  # instance data may hold long exact answers
            return json.dumps(dataclasses.asdict(self), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "Problem":
        with long_int_text():
            return cls(**json.loads(text))


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The verifier's judgement of one output."""

    reward: float  # in [-1, 1]
    accuracy: bool  # reward >= the problem's pass threshold
    format_ok: bool  # reward > -1
    reason: str  # correct | partial | wrong | invalid | format | no_answer | error | timeout | crash

    @classmethod
    def format_error(cls, reason: str = "format") -> "Verdict":
        return cls(FORMAT_ERROR_REWARD, False, False, reason)

    @classmethod
    def judge(cls, reward: float, pass_threshold: float) -> "Verdict":
        """Turn a reward into a verdict: the original's format rule, exact accuracy (the original allowed 1e-6)."""
        if reward <= FORMAT_ERROR_REWARD + FORMAT_TOLERANCE:
            return cls.format_error("format")
        accuracy = reward >= pass_threshold
        if accuracy:
            reason = "correct"
        elif reward > 0:
            reason = "partial"
        elif reward == 0:
            reason = "wrong"
        else:
            reason = "invalid"
        return cls(reward, accuracy, True, reason)


class FormatError(ValueError):
    """Raised by a scorer when the answer cannot be parsed: reward -1."""


class DifficultyTooHigh(ValueError):
    """A level above the environment's top level (the highest it generates within the pool's budgets)."""


@functools.cache
def top_levels() -> dict[str, int]:
    """{environment: top level} measured by experiments/find_top_levels.py ({} if never measured)."""
    if not TOP_LEVELS_PATH.exists():
        return {}
    levels = json.loads(TOP_LEVELS_PATH.read_text())["levels"]
    return {name: int(row["max_difficulty"]) for name, row in levels.items()}


# ---------------------------------------------------------------------------
# Answer extraction

ANSWER_TAGS: tuple[str, str] = ("<answer>", "</answer>")
BOXED: tuple[str, str] = ("\\boxed{", "}")
_ASSISTANT_CUES = ("Assistant:", "<|im_start|>assistant")
_BRACE = re.compile(r"[{}]")


def extract_answer(output: str, markers: Sequence[str] = ANSWER_TAGS) -> str | None:
    """Text inside the last marker pair (stripped), or None if there is none.

    Like the original, text before the first assistant cue is ignored. `\\boxed{...}`
    is matched with balanced braces (the original stopped at the first `}`).
    Linear time in the output length.
    """
    for cue in _ASSISTANT_CUES:
        cut = output.find(cue)
        if cut >= 0:
            output = output[cut + len(cue):]
    start, end = markers
    if start.endswith("{") and end == "}":
        answer = _last_balanced(output, start)
    else:
        answer = _last_pair(output, start, end)
    return None if answer is None else answer.strip()


def _last_pair(text: str, start: str, end: str) -> str | None:
    """Last match of the non-greedy pattern start(.*?)end, without regex backtracking."""
    last, pos = None, 0
    while True:
        i = text.find(start, pos)
        if i < 0:
            return last
        j = text.find(end, i + len(start))
        if j < 0:
            return last
        last, pos = text[i + len(start):j], j + len(end)


def _last_balanced(text: str, start: str) -> str | None:
    """Content of the last top-level `start ... }` whose braces balance."""
    last, pos = None, 0
    while True:
        i = text.find(start, pos)
        if i < 0:
            return last
        depth, j = 1, i + len(start)
        while depth:
            brace = _BRACE.search(text, j)
            if brace is None:
                return last
            depth += 1 if brace.group() == "{" else -1
            j = brace.end()
        last, pos = text[i + len(start):j - 1], j


# ---------------------------------------------------------------------------
# Parsing helpers for scorers (all raise FormatError on bad input)

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def check_length(text: str) -> str:
    """The stripped answer; FormatError if it is longer than MAX_ANSWER_CHARS."""
    if len(text) > MAX_ANSWER_CHARS:
        raise FormatError("answer too long")
    return text.strip()


def parse_int(text: str) -> int:
    """A single (ASCII) integer, nothing else; at most 4,300 digits (MAX_ANSWER_CHARS in an environment
    with `long_answers`)."""
    text = check_length(text)
    if not _INT.fullmatch(text):
        raise FormatError(f"not an integer: {text[:40]!r}")
    try:
        return int(text)
    except ValueError as error:  # more digits than int() accepts
        raise FormatError(str(error)) from None


def parse_ints(text: str, sep: str | None = None) -> list[int]:
    """Integers separated by whitespace (or `sep`); empty text gives []."""
    text = check_length(text)
    return [parse_int(token) for token in text.split(sep)] if text else []


def parse_float(text: str) -> float:
    """A single finite decimal number."""
    text = check_length(text)
    if len(text) > 1000 or not _FLOAT.fullmatch(text):
        raise FormatError(f"not a number: {text[:40]!r}")
    value = float(text)
    if not math.isfinite(value):
        raise FormatError("non-finite number")
    return value


def parse_lines(text: str) -> list[str]:
    """Non-empty stripped lines."""
    return [line.strip() for line in check_length(text).splitlines() if line.strip()]


def parse_int_rows(text: str) -> list[list[int]]:
    """A matrix: one line per row, integers separated by whitespace."""
    return [parse_ints(line) for line in parse_lines(text)]


# ---------------------------------------------------------------------------
# Reward shapes and single-integer scorers used across the gym (rlve_reference.md section a)


def ratio_reward(answer: float, reference: float, beta: float) -> float:
    """(min/max)^beta for counting answers; both must be positive.

    A wrong answer stays below 1 even where the float ratio rounds to 1 (counts above ~10^16).
    """
    if reference == answer:
        return 1.0
    if reference <= 0 or answer <= 0:
        return 0.0
    return min((min(answer, reference) / max(answer, reference)) ** beta, ALMOST_ONE)


def fraction_reward(good: int, total: int, beta: float) -> float:
    """(good/total)^beta, e.g. satisfied constraints or matching positions; below 1 unless good == total."""
    if good == total or total == 0:
        return 1.0
    return min((good / total) ** beta, ALMOST_ONE)


def positional_match_reward(answer: Sequence[Any], gold: Sequence[Any], beta: float) -> float:
    """mean([answer_i == gold_i])^beta for equal-length sequences."""
    return fraction_reward(sum(a == g for a, g in zip(answer, gold)), len(gold), beta)


def score_exact(answer: str, gold: int) -> float:
    """Binary single-integer answers: 1 for the gold integer, else 0."""
    return float(parse_int(answer) == gold)


def score_mod(answer: str, gold: int, mod: int) -> float:
    """'Answer modulo MOD' environments: an integer outside [0, MOD) is invalid (-0.5), else exact 1 / 0."""
    value = parse_int(answer)
    if not 0 <= value < mod:
        return INVALID
    return float(value == gold)


def score_count(answer: str, gold: int, beta: float = 10, positive: bool = False) -> float:
    """Counting answers: (min/max)^beta; a negative (with `positive`, also a zero) answer gets -1.

    A gold count of 0 is matched only by 0 (ratio_reward).
    """
    value = parse_int(answer)
    if value < 0 or (positive and value == 0):
        return FORMAT_ERROR_REWARD
    return ratio_reward(value, gold, beta)


# ---------------------------------------------------------------------------
# Difficulty levels: the controllers' growth rules and knob sweeps (rlve_reference.md section a)


def grow(x: int, rule, times: int) -> int:
    """Apply a controller growth rule `times` times, e.g. grow(3, lambda x: 2 * x, d)."""
    for _ in range(times):
        x = rule(x)
    return x


def grow_1p1(x: int, times: int) -> int:
    """The controllers' most common rule x <- floor(1.1 x + 1), `times` times: 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, ..."""
    for _ in range(times):
        x = int(1.1 * x + 1)
    return x


def grow_1p5(x: int, times: int) -> int:
    """The rule x <- floor(1.5 x), `times` times: 10, 15, 22, 33, 49, ..."""
    for _ in range(times):
        x = int(1.5 * x)
    return x


def sweep(low: float, high: float, step: float = 0.1) -> tuple[float, ...]:
    """A controller's knob sweep low, low + step, ..., high (e.g. edge densities 0.1..0.9), printing cleanly."""
    count = round((high - low) / step)
    return tuple(round(low + k * step, 6) for k in range(count + 1))


# ---------------------------------------------------------------------------
# The base class


class Environment:
    """A verifiable environment. Subclasses set `name` and implement the four hooks.

    Hooks:
      levels(d)            parameter settings allowed at difficulty d (the original's
                           controller advanced d times); one is drawn per problem.
      sample(params, rng)  instance data (JSON-native dict); put a correct answer text
                           under "reference" when the generator knows one.
      prompt(data)         the user-facing problem text with its own output format; it
                           never mentions answer tags (the prompt format layer does).
      score(data, answer)  reward in [-1, 1] for the extracted answer text; raise
                           FormatError for unparseable answers.
    """

    name: ClassVar[str] = ""  # the exact original identifier, e.g. "Sorting"
    size_keys: ClassVar[tuple[str, ...]] = ()  # parameters that grow with difficulty (default: int ones)
    empty_answer_can_solve: ClassVar[bool] = False  # True where an empty answer is a real solution
    top_level: ClassVar[int | None] = None  # a hard limit by construction; the measured one applies too
    long_answers: ClassVar[bool] = False  # exact answers may exceed 4,300 digits (see long_int_text)

    # -- hooks ---------------------------------------------------------------
    def levels(self, difficulty: int) -> list[dict[str, Any]]:
        raise NotImplementedError

    def sample(self, params: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        raise NotImplementedError

    def prompt(self, data: dict[str, Any]) -> str:
        raise NotImplementedError

    def score(self, data: dict[str, Any], answer: str) -> float:
        raise NotImplementedError

    def pass_threshold(self, data: dict[str, Any]) -> float:
        """Reward needed for accuracy; 1.0 except in a few environments."""
        return 1.0

    # -- public API ----------------------------------------------------------
    @property
    def max_difficulty(self) -> int | None:
        """The highest level this environment supports within the pool's budgets (None: no limit known).

        The measured level (rlve_jax/gym/top_levels.json: time, memory and prompt budgets) and the
        class's own `top_level`, whichever is lower.
        """
        limits = [x for x in (self.top_level, top_levels().get(self.name)) if x is not None]
        return min(limits) if limits else None

    def generate(self, difficulty: int, seed: int) -> Problem:
        """The problem for (difficulty, seed): pure and reproducible everywhere."""
        if not isinstance(difficulty, int) or difficulty < 0:
            raise ValueError(f"{self.name}: difficulty must be a non-negative int, got {difficulty!r}")
        top = self.max_difficulty
        if top is not None and difficulty > top:
            raise DifficultyTooHigh(f"{self.name}: difficulty {difficulty} is above its top level {top} "
                                    f"(the highest it generates within the pool's budgets)")
        return self.generate_any_level(difficulty, seed)

    def generate_any_level(self, difficulty: int, seed: int) -> Problem:
        """`generate` without the top-level check: only for measuring top levels."""
        with long_int_text() if self.long_answers else contextlib.nullcontext():
            rng = random.Random(seed)
            params = dict(rng.choice(self.levels(difficulty)))
            data = self.sample(dict(params), rng)
            return Problem(self.name, difficulty, seed, self.prompt(data), params, data, self.pass_threshold(data))

    def verify(self, problem: Problem, output: str, markers: Sequence[str] = ANSWER_TAGS) -> Verdict:
        """Score a model output; never raises. Missing markers or parse failures give -1."""
        with long_int_text() if self.long_answers else contextlib.nullcontext():
            return self._verify(problem, output, markers)

    def _verify(self, problem: Problem, output: str, markers: Sequence[str]) -> Verdict:
        try:
            answer = extract_answer(output, markers)
            if answer is None:
                return Verdict.format_error("no_answer")
            if len(answer) > MAX_ANSWER_CHARS:  # no scorer ever sees more text than this
                return Verdict.format_error("format")
            reward = float(self.score(problem.data, answer))
        except FormatError:
            return Verdict.format_error("format")
        except Exception:  # noqa: BLE001 -- like the original, any scorer failure is a format error
            return Verdict.format_error("error")
        if not -1.0 <= reward <= 1.0:  # NaN fails this too
            return Verdict.format_error("error")
        return Verdict.judge(reward, problem.pass_threshold)

    def reference(self, problem: Problem) -> str | None:
        """A correct answer text (without markers), or None if none is cheap to produce."""
        return problem.data.get("reference")

    def perturb(self, problem: Problem, answer: str) -> str:
        """A nearby wrong answer for tests: the last integer in the text moved by max(1, 1%)."""
        numbers = list(_INT.finditer(answer))
        if not numbers:
            return answer + " ?"
        last = numbers[-1]
        value = int(last.group())
        return answer[:last.start()] + str(value + max(1, abs(value) // 100)) + answer[last.end():]

    def __repr__(self) -> str:
        return f"<Environment {self.name}>"
