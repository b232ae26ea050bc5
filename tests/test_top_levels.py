"""Every environment's top level (rlve_jax/gym/top_levels.json, measured by experiments/find_top_levels.py):
each generates there within the pool's budgets, refuses the levels above, and the CLI says so in one line."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlve_jax.gym import registry
from rlve_jax.gym.env import TOP_LEVELS_PATH, DifficultyTooHigh, top_levels
from envs_for_tests import top_level_item
from rlve_jax.gym.pool import EnvPool

REPO = Path(__file__).resolve().parents[1]
# The budgets experiments/find_top_levels.py measured the top levels with.
CPU_S, MEMORY_MB, PROMPT_CHARS = 2.0, 1024, 65_536


def test_every_environment_has_a_measured_top_level():
    names = registry.names()
    missing = [n for n in names if n not in top_levels()]
    assert not missing, f"run experiments/find_top_levels.py for {missing}"
    assert all(0 <= registry.make(n).max_difficulty <= 40 for n in names)


def check_top_levels(names: list[str]) -> None:
    """One seed per environment at its top level, in the pool (two workers): generate + verify(reference)
    within the probe's budgets, measured in CPU time in the worker so a loaded machine passes too.

    CPU is allowed 2x the probe's 2 s (timers differ between runs), still half the pool's 10 s timeout.
    """
    envs = registry.make_all(names)
    start = time.perf_counter()
    with EnvPool(workers=2, timeout_s=120.0, memory_limit_mb=2048) as pool:
        results = pool._run(top_level_item, [(env.name, env.max_difficulty, 0) for env in envs])
    seconds = time.perf_counter() - start
    failed = {env.name: outcome for env, (outcome, _) in zip(envs, results) if outcome != "ok"}
    assert not failed, f"no problem at the top level: {failed}"
    measured = {env.name: value for env, (_, value) in zip(envs, results)}
    assert not {n: m for n, m in measured.items() if m["cpu_s"] > 2 * CPU_S}
    assert not {n: m for n, m in measured.items() if m["added_mb"] > MEMORY_MB}
    assert not {n: m for n, m in measured.items() if m["prompt_chars"] > PROMPT_CHARS}
    assert not [n for n, m in measured.items() if not m["reference_correct"]]
    print(f"{len(envs)} environments at their top levels in {seconds:.1f} s, "
          f"{sum(m['cpu_s'] for m in measured.values()):.1f} CPU s")


def test_c16_and_the_memory_prompt_and_answer_bound_environments_at_their_top_levels():
    """The default-run share of the check below: C16, and every environment whose top level was set by
    memory, prompt size or answer length (cheap in CPU) rather than by time."""
    data = json.loads(TOP_LEVELS_PATH.read_text())["levels"]
    bounded = [n for n, row in data.items() if not row["stopped_by"].startswith(("time", "cap"))]
    check_top_levels(sorted(set(registry.collections()["C16"]) | set(bounded)))


@pytest.mark.slow  # 3-7 min on 2 loaded cores, and a few environments still fail it (docs/readme_reliability.md)
def test_every_environment_generates_at_its_top_level_within_the_budgets():
    check_top_levels(registry.names())


def test_levels_above_the_top_are_refused():
    for env in registry.make_all(registry.names()):
        with pytest.raises(DifficultyTooHigh, match=f"{env.name}: difficulty {env.max_difficulty + 1} is above"):
            env.generate(env.max_difficulty + 1, 0)


@pytest.mark.parametrize("difficulty", ["1000000", "-3"])
def test_envs_show_rejects_out_of_range_levels_in_one_line(difficulty):
    result = subprocess.run([sys.executable, "-m", "rlve_jax.gym.envs", "show", "Sorting", "--difficulty", difficulty],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error: Sorting")
