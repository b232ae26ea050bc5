"""Every environment's prompts at levels 0-8: no format example that the environment's own verifier rejects,
and the prompts state what their verifiers need.

A format example is a backtick-quoted span after "for example", "e.g.", "such as", "like" or "for instance"
in the prompt's Output Format section (the text from "Output Format" on; examples in the problem statement
illustrate the problem, not the answer). Each is scored as the whole answer and must not be a format error
(it may be wrong or infeasible for this instance: most examples show the format on another instance). An
example of one line of a multi-line answer (a one-line example that is a format error on its own, where the
reference answer has several lines) is scored repeated once per line of the reference. Examples without
backticks are not extracted. Where the generic check cannot see what is wrong, the stated example pattern is
checked directly: Minimum_MaxSlicer's example must split the array it names ("a K-element array into the M
batches") and SmallestCircle's reference rounded to the stated number of decimals must pass.
"""

import re

import pytest

from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS
from rlve_jax.gym.environments._segmentation import parse_batch_ends

LEVELS = range(9)
EXAMPLE = re.compile(r"(?:for example|e\.g\.|such as|like|for instance)[^`.]{0,80}?`([^`\n]+)`", re.IGNORECASE)


def problems(name: str):
    """The environment's problems at levels 0-8 (seed = level, so a few seeds), up to its top level."""
    env = registry.make(name)
    top = env.max_difficulty if env.max_difficulty is not None else max(LEVELS)
    return env, [env.generate(level, level) for level in LEVELS if level <= top]


def format_examples(prompt: str) -> list[str]:
    start = prompt.find("Output Format")
    return EXAMPLE.findall(prompt[start:]) if start >= 0 else []


def rejected_examples(name: str) -> list[str]:
    """'level: `example` -> reason' for each format example the verifier reads as a format error."""
    env, found = problems(name)
    rejected = []
    for problem in found:
        reference = env.reference(problem) or ""
        for example in format_examples(problem.prompt):
            verdict = env.verify(problem, f"<answer>{example}</answer>", ANSWER_TAGS)
            if not verdict.format_ok and "\n" not in example and reference.count("\n"):
                as_lines = "\n".join([example] * (reference.count("\n") + 1))
                verdict = env.verify(problem, f"<answer>{as_lines}</answer>", ANSWER_TAGS)
            if not verdict.format_ok:
                rejected.append(f"level {problem.difficulty}: `{example}` -> {verdict.reason}")
    return rejected


def test_no_environment_shows_a_format_example_its_verifier_rejects():
    rejected = {name: found for name in registry.names() if (found := rejected_examples(name))}
    assert not rejected, rejected


def test_the_scan_finds_examples_and_would_catch_a_rejected_one():
    """The extraction sees the examples of environments known to have them, and a format error counts."""
    with_examples = [n for n in ("Sorting", "Maze", "RoundRobin", "ShortestPath", "Minimum_MaxSlicer")
                     if all(format_examples(p.prompt) for p in problems(n)[1])]
    assert len(with_examples) == 5, with_examples
    env, (problem, *_) = problems("RoundRobin")
    assert not env.verify(problem, "<answer>0210\n0210\n0210</answer>", ANSWER_TAGS).format_ok  # the old example


def test_minimum_max_slicer_example_splits_the_array_it_names():
    env, found = problems("Minimum_MaxSlicer")
    for problem in found:
        (example,) = format_examples(problem.prompt)
        size, batches = map(int, re.search(r"(\d+)-element array into the (\d+) batches", problem.prompt).groups())
        ends = parse_batch_ends(example, size, base=0)
        assert ends is not None and len(ends) == batches, (problem.prompt, example)


@pytest.mark.parametrize("level", LEVELS)
def test_smallest_circle_reference_at_the_stated_precision_passes(level):
    env = registry.make("SmallestCircle")
    digits = int(re.search(r"at least (\d+) digits after the decimal point", env.generate(level, 0).prompt)[1])
    for seed in range(10):
        problem = env.generate(level, seed)
        rounded = " ".join(f"{float(v):.{digits}f}" for v in env.reference(problem).split())
        assert env.verify(problem, f"<answer>{rounded}</answer>", ANSWER_TAGS).accuracy, (level, seed, rounded)
