"""Exact answers past Python's 4,300-digit int<->str limit. The audit of all 400 environments at levels 0-40
(experiments/audit_long_integers.py) finds four whose reference answers pass it; each declares `long_answers`,
so in a process with Python's default limit its reference verifies with reward 1, a wrong answer of the same
length gets its reward (not a format error), and its problem records round-trip. Their top levels stop where the
largest possible answer would pass the 4,096-character output budget, below the limit."""

import math
import re
import sys

import pytest

from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_BUDGET_CHARS, ANSWER_TAGS, Problem, long_int_text
from rlve_jax.gym.environments.cinema import seating_probability
from rlve_jax.gym.environments.decreasing_digit_counting import count_increasing_numbers
from rlve_jax.gym.environments.max_multiplication_fixed_sum import best_product
from rlve_jax.gym.environments.no_double_triple_counting import free_subsets

PYTHON_DIGIT_LIMIT = sys.int_info.default_max_str_digits  # 4,300
# The audit's finds, each with a (level, seed) whose reference answer passes the limit (above the top level:
# the output budget stops them first).
PAST_THE_LIMIT = {"Cinema": (16, 0), "DecreasingDigitCounting": (12, 0), "MaxMultiplicationFixedSum": (21, 0),
                  "NoDoubleTripleCounting": (20, 0)}


@pytest.fixture
def pythons_digit_limit():
    """The limit a fresh interpreter has, whatever this one was started with."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(PYTHON_DIGIT_LIMIT)
    yield
    sys.set_int_max_str_digits(previous)


def test_the_environments_with_answers_past_the_limit_declare_long_answers():
    assert all(registry.make(name).long_answers for name in PAST_THE_LIMIT)


@pytest.mark.parametrize("name", sorted(PAST_THE_LIMIT))
def test_a_reference_past_the_limit_verifies_under_pythons_default_limit(name, pythons_digit_limit):
    env = registry.make(name)
    problem = env.generate_any_level(*PAST_THE_LIMIT[name])
    reference = env.reference(problem)
    assert max(map(len, re.findall(r"[0-9]+", reference))) > PYTHON_DIGIT_LIMIT
    verdict = env.verify(problem, f"<answer>{reference}</answer>", ANSWER_TAGS)
    assert verdict.reward == 1.0 and verdict.accuracy
    off_by_one = reference[:-1] + str((int(reference[-1]) + 1) % 10)  # the last digit moved: same length, wrong
    wrong = env.verify(problem, f"<answer>{off_by_one}</answer>", ANSWER_TAGS)
    assert wrong.format_ok and not wrong.accuracy
    assert Problem.from_json(problem.to_json()) == problem
    assert sys.get_int_max_str_digits() == PYTHON_DIGIT_LIMIT  # lifted only inside the environment's calls


def test_elsewhere_an_answer_past_the_limit_is_a_format_error_without_arithmetic(pythons_digit_limit):
    env = registry.make("Sorting")
    problem = env.generate(0, 0)
    verdict = env.verify(problem, f"<answer>{'9' * (PYTHON_DIGIT_LIMIT + 1)}</answer>", ANSWER_TAGS)
    assert verdict.reason == "format"


def largest_answer(name: str, level: int) -> int:
    """Characters of the longest reference answer any seed can draw at a level (each answer grows with every
    drawn size, so the largest draw gives it)."""
    (params,) = registry.make(name).levels(level)
    with long_int_text():
        if name == "Cinema":  # N <= K <= MAX_N_K, the largest at K = MAX_N_K
            k = params["MAX_N_K"]
            fractions = (seating_probability(n, k) for n in range(2, k + 1))
            return max(len(f"{p.numerator} {p.denominator}") for p in fractions)
        if name == "DecreasingDigitCounting":  # K <= MAX_K, W <= K * 2^K
            k = params["MAX_K"]
            assert (2**k - 1) * math.log10(2) < 2 * ANSWER_BUDGET_CHARS  # at most 2^(2^K - 1) numbers: fail fast
            return len(str(count_increasing_numbers(k, k * 2**k)))
        if name == "MaxMultiplicationFixedSum":
            return len(str(best_product(params["MAX_N"])))
        return len(str(free_subsets(params["MAX_N"])))


@pytest.mark.parametrize("name", sorted(PAST_THE_LIMIT))
def test_every_draw_of_the_top_level_fits_the_output_budget(name):
    """These answers grow with a size drawn per problem, so ten sampled seeds can miss the largest (seeds 0-4
    did at DecreasingDigitCounting 16 and MaxMultiplicationFixedSum 20): each class's `top_level` is the last level
    whose largest draw fits."""
    top = registry.make(name).max_difficulty
    assert largest_answer(name, top) <= ANSWER_BUDGET_CHARS < largest_answer(name, top + 1)
