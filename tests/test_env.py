"""Answer extraction, parsing helpers and verdict rules of rlve_jax.gym.env."""

import pytest

from rlve_jax.gym.env import ANSWER_TAGS, BOXED, FormatError, Problem, Verdict, extract_answer
from rlve_jax.gym.environments._common import (
    INVALID, grow, grow_1p1, grow_1p5, parse_float, parse_int, parse_ints, ratio_reward, score_count, score_exact,
    score_mod, sweep,
)


@pytest.mark.parametrize("output, expected", [
    ("<answer>1</answer> then <answer> 2 </answer>", "2"),  # the last pair, stripped
    ("no tags", None),
    ("<answer>unclosed", None),
    ("<answer>a</answer><answer>unclosed", "a"),
    ("<answer><answer>5</answer></answer>", "<answer>5"),  # non-greedy, as in the original
    ("User: <answer>9</answer> Assistant: <answer>3</answer>", "3"),
    ("User: <answer>9</answer> Assistant: nothing", None),  # text before the cue is ignored
    ("<|im_start|>user <answer>1</answer><|im_start|>assistant <answer>2</answer>", "2"),
])
def test_answer_tags(output, expected):
    assert extract_answer(output, ANSWER_TAGS) == expected


@pytest.mark.parametrize("output, expected", [
    ("\\boxed{42}", "42"),
    ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),  # balanced braces (the original cut at the first })
    ("\\boxed{1} and finally \\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),
    ("\\boxed{3} \\boxed{unbalanced", "3"),
    ("\\boxed{" * 1000, None),
    ("nothing", None),
])
def test_boxed(output, expected):
    assert extract_answer(output, BOXED) == expected


def test_extraction_is_linear_on_adversarial_text():
    import time
    start = time.perf_counter()
    assert extract_answer("<answer>" * 200_000, ANSWER_TAGS) is None
    assert extract_answer("\\boxed{" * 200_000, BOXED) is None
    assert time.perf_counter() - start < 20.0  # a quadratic scan would take hours; this is not a benchmark


def test_parsers():
    assert parse_int(" -12 ") == -12
    assert parse_ints("1  2\n3") == [1, 2, 3]
    assert parse_ints("") == []
    assert parse_ints("1,2, 3", sep=",") == [1, 2, 3]
    assert parse_float("2.5e-3") == 0.0025
    for bad in ("1.5", "9**9", "٣", "1 2", "9" * 5000, ""):
        with pytest.raises(FormatError):
            parse_int(bad)
    for bad in ("nan", "inf", "1e999", "0x10"):
        with pytest.raises(FormatError):
            parse_float(bad)


def test_verdict_rules():
    assert Verdict.judge(1.0, 1.0) == Verdict(1.0, True, True, "correct")
    assert Verdict.judge(0.95, 0.9453) == Verdict(0.95, True, True, "correct")
    assert Verdict.judge(0.5, 1.0).reason == "partial"
    assert Verdict.judge(0.0, 1.0).reason == "wrong"
    assert Verdict.judge(-0.5, 1.0) == Verdict(-0.5, False, True, "invalid")
    assert Verdict.judge(-1.0, 1.0) == Verdict(-1.0, False, False, "format")


def test_ratio_reward():
    assert ratio_reward(5, 10, 1) == 0.5
    assert ratio_reward(20, 10, 2) == 0.25
    assert ratio_reward(0, 0, 10) == 1.0
    assert ratio_reward(0, 3, 10) == 0.0


def test_single_integer_scorers():
    assert score_exact("7", 7) == 1.0 and score_exact("-7", 7) == 0.0
    assert score_mod("3", 3, 5) == 1.0 and score_mod("4", 3, 5) == 0.0
    assert score_mod("5", 3, 5) == INVALID and score_mod("-1", 3, 5) == INVALID
    assert score_count("5", 10, beta=1) == 0.5 and score_count("0", 0) == 1.0
    assert score_count("-1", 3) == -1.0 and score_count("0", 3, positive=True) == -1.0
    for scorer in (lambda a: score_exact(a, 1), lambda a: score_mod(a, 1, 5), lambda a: score_count(a, 1)):
        with pytest.raises(FormatError):
            scorer("1.0")


def test_growth_rules_and_sweeps():
    assert [grow_1p1(3, d) for d in range(11)] == [3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16]
    assert [grow_1p5(10, d) for d in range(5)] == [10, 15, 22, 33, 49]
    assert grow_1p1(7, 30) == grow(7, lambda x: int(1.1 * x + 1), 30)
    assert grow_1p5(5, 30) == grow(5, lambda x: int(1.5 * x), 30)
    assert sweep(0.1, 0.9) == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    assert sweep(1.0, 3.0) == tuple(round(1.0 + 0.1 * i, 1) for i in range(21))
    assert sweep(0.01, 0.15, 0.01)[-1] == 0.15


def test_problem_json_round_trip():
    problem = Problem("X", 2, 7, "prompt ✓", {"N": 3}, {"grid": [[1, 2], [3, 4]], "s": "é"}, 0.9)
    assert Problem.from_json(problem.to_json()) == problem
