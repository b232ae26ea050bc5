"""Conformance suite: runs over every registered environment automatically.

A new environment module is covered the moment it is registered; no test code to add.
"""

import json
import subprocess
import sys
import time

import pytest

from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, BOXED, Problem

ENV_NAMES = registry.names()
DIFFICULTIES = range(7)
SEEDS = (0, 1, 2024)
TIME_LIMIT_S = 5.0  # generous bound for one generate or verify at d <= 6 (the benchmark has real numbers)


def capped(env, levels) -> list[int]:
    """The levels, those above the environment's top level replaced by it (Sudoku's top level is 4)."""
    return [min(d, env.max_difficulty) for d in levels]


def tagged(text: str) -> str:
    return f"<answer>{text}</answer>"


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    elapsed = time.perf_counter() - start
    return result, elapsed


@pytest.fixture(scope="module", params=ENV_NAMES)
def env_problems(request):
    """(env, {(difficulty, seed): problem}) generated once per environment."""
    env = registry.make(request.param)
    problems = {}
    for d in sorted(set(capped(env, DIFFICULTIES))):
        for seed in SEEDS:
            problem, elapsed = timed(env.generate, d, seed)
            assert elapsed < TIME_LIMIT_S, f"{env.name} d={d} seed={seed}: generate took {elapsed:.2f}s"
            problems[d, seed] = problem
    return env, problems


def test_deterministic_and_json_round_trip(env_problems):
    env, problems = env_problems
    for (d, seed), problem in problems.items():
        assert problem.env == env.name and problem.difficulty == d and problem.seed == seed
        assert env.generate(d, seed) == problem, f"{env.name} d={d} seed={seed} is not deterministic"
        assert Problem.from_json(problem.to_json()) == problem, "Problem does not survive JSON (use lists, str keys)"
        assert isinstance(problem.prompt, str) and problem.prompt.strip()
        assert "<answer>" not in problem.prompt, "answer tags belong to the prompt format layer"


def test_reference_is_accepted_and_perturbation_rejected(env_problems):
    env, problems = env_problems
    for (d, seed), problem in problems.items():
        reference = env.reference(problem)
        if reference is None:
            assert d > 4, f"{env.name}: reference() must exist at difficulties 0-4 (d={d}, seed={seed})"
            continue
        round_tripped = Problem.from_json(problem.to_json())
        verdict, elapsed = timed(env.verify, round_tripped, tagged(reference), ANSWER_TAGS)
        assert elapsed < TIME_LIMIT_S, f"{env.name} d={d}: verify took {elapsed:.2f}s"
        assert verdict.accuracy and verdict.reward >= problem.pass_threshold - 1e-6, (
            f"{env.name} d={d} seed={seed}: reference {reference[:200]!r} got {verdict}")
        boxed = env.verify(round_tripped, f"so the answer is \\boxed{{{reference}}}.", BOXED)
        assert boxed == verdict, f"{env.name}: \\boxed{{}} extraction changed the verdict"
        wrong = env.perturb(problem, reference)
        assert wrong != reference
        assert not env.verify(problem, tagged(wrong), ANSWER_TAGS).accuracy, (
            f"{env.name} d={d} seed={seed}: perturbed answer {wrong[:200]!r} was accepted")


ADVERSARIAL = [
    "",
    "no tags at all, just 42",
    tagged(""),
    tagged("   "),
    tagged("garbage ~!@#$%^&*() text"),
    tagged("x" * 1_000_000),
    "y" * 1_000_000,
    "<answer>" * 50_000,
    tagged("9" * 100_000),
    tagged("-" + "7" * 100_000),
    tagged("9**9**9**9"),
    tagged("(" * 5000),
    tagged("٣ ٤ ५ ６"),  # unicode digits
    tagged("1e999999"),
    tagged("nan inf -inf"),
    "<answer><answer>1</answer></answer>",
    tagged("1\n2\n3\n") * 3,
    "\\boxed{" * 1000,
    tagged("[1, 2, 3]"),
    tagged("{'a': 1}"),
]


def test_adversarial_outputs_never_raise(env_problems, tmp_path):
    env, problems = env_problems
    marker = tmp_path / "pwned"
    evil = [tagged(f"__import__('os').system('touch {marker}')"),
            tagged(f"().__class__.__base__.__subclasses__() or open('{marker}', 'w')")]
    for d in capped(env, (0, 3, 6)):
        problem = problems[d, SEEDS[0]]
        for output in ADVERSARIAL + evil:
            verdict, elapsed = timed(env.verify, problem, output, ANSWER_TAGS)
            assert -1.0 <= verdict.reward <= 1.0
            assert elapsed < TIME_LIMIT_S, f"{env.name}: {output[:30]!r}... took {elapsed:.2f}s"
            if not env.empty_answer_can_solve:
                assert not (verdict.accuracy and output in ("", tagged(""), tagged("   ")))
    assert not marker.exists(), "model output was executed"


def test_size_parameters_grow_with_difficulty(env_problems):
    env, _ = env_problems
    levels = [env.levels(d) for d in range(11)]
    assert all(levels), f"{env.name}: a level without parameter settings"
    json.dumps(levels)  # JSON-native
    keys = env.size_keys or tuple(k for k, v in levels[0][0].items() if isinstance(v, int) and not isinstance(v, bool))
    assert keys, f"{env.name}: set size_keys (no integer parameters to check)"
    for key in keys:
        maxima = [max(setting[key] for setting in level) for level in levels]
        assert maxima == sorted(maxima), f"{env.name}: {key} shrinks with difficulty: {maxima}"
    assert any(max(s[k] for s in levels[10]) > max(s[k] for s in levels[0]) for k in keys), (
        f"{env.name}: none of {keys} grows from level 0 to level 10")


def test_prompts_differ_across_seeds(env_problems):
    env, _ = env_problems
    for d in capped(env, (2, 4, 6)):
        prompts = {env.generate(d, seed).prompt for seed in range(100, 110)}
        assert len(prompts) >= 5, f"{env.name} d={d}: only {len(prompts)} distinct prompts in 10 seeds"


def test_empty_answer_rarely_solves(env_problems):
    env, _ = env_problems
    problems = [env.generate(d, seed) for d in (0, 2, 4) for seed in range(200, 210)]
    solved = sum(env.verify(p, tagged(""), ANSWER_TAGS).accuracy for p in problems)
    assert solved <= 1 or env.empty_answer_can_solve, (
        f"{env.name}: an empty answer solves {solved}/{len(problems)} problems")


def test_generation_is_identical_in_another_process():
    """Same (env, difficulty, seed) -> same problem in a fresh interpreter."""
    script = (
        "import json, sys\n"
        "from rlve_jax.gym import registry\n"
        "envs = [registry.make(n) for n in registry.names()]\n"
        "out = {e.name: [e.generate(min(d, e.max_difficulty), 7).to_json() for d in (0, 3, 6)] for e in envs}\n"
        "json.dump(out, sys.stdout)\n"
    )
    envs = [registry.make(n) for n in ENV_NAMES]
    here = {e.name: [e.generate(min(d, e.max_difficulty), 7).to_json() for d in (0, 3, 6)] for e in envs}
    there = json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                      check=True, env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout)
    assert here == there
