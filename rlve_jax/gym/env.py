"""The environment contract: problems, verdicts, answer extraction, the Environment base class.

An environment is a pure problem generator at an integer difficulty plus an
algorithmic verifier. `generate(difficulty, seed)` is deterministic on any machine;
`verify(problem, output)` never raises and never runs model text as code.
This module is plain Python (no JAX) so worker processes stay light. The helpers an environment
uses to parse and score answers live in rlve_jax/gym/environments/_common.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import random
import re
import sys
from pathlib import Path
from typing import Any, ClassVar, Iterator, Sequence

FORMAT_ERROR_REWARD = -1.0
FORMAT_TOLERANCE = 1e-6  # the original's format rule: format_ok = reward > -1 + 1e-6
MAX_ANSWER_CHARS = 100_000  # longer extracted answers are a format error, never parsed
# The longest reference answer a level may ask for (experiments/find_top_levels.py): a sixth of the default
# 24,576-token response even at one token per character.
ANSWER_BUDGET_CHARS = 4096
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
    """{environment: top level} measured by experiments/find_top_levels.py (package data: a missing file is an
    install error, never "no caps")."""
    if not TOP_LEVELS_PATH.exists():
        raise FileNotFoundError(f"{TOP_LEVELS_PATH} is missing: this install of rlve_jax lacks its package data "
                                "(reinstall it; experiments/find_top_levels.py regenerates the file)")
    levels = json.loads(TOP_LEVELS_PATH.read_text())["levels"]
    return {name: int(row["max_difficulty"]) for name, row in levels.items()}


# ---------------------------------------------------------------------------
# Answer extraction

ANSWER_TAGS: tuple[str, str] = ("<answer>", "</answer>")
BOXED: tuple[str, str] = ("\\boxed{", "}")
DEFAULT_MARKERS = BOXED  # the default prompt's ("chat"): every function that takes markers defaults to these
_ASSISTANT_CUES = ("Assistant:", "<|im_start|>assistant")
_BRACE = re.compile(r"[{}]")


def extract_answer(output: str, markers: Sequence[str] = DEFAULT_MARKERS) -> str | None:
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

    def verify(self, problem: Problem, output: str, markers: Sequence[str] = DEFAULT_MARKERS) -> Verdict:
        """Score a model output; never raises. Missing markers or parse failures give -1. TinyZero-style prompts
        pass ANSWER_TAGS."""
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
        numbers = list(re.finditer(r"[+-]?[0-9]+", answer))
        if not numbers:
            return answer + " ?"
        last = numbers[-1]
        value = int(last.group())
        return answer[:last.start()] + str(value + max(1, abs(value) // 100)) + answer[last.end():]

    def __repr__(self) -> str:
        return f"<Environment {self.name}>"
