"""Every environment's top level (rlve_jax/top_levels.json, measured by experiments/find_top_levels.py):
each generates there within the pool's budgets, refuses the levels above, and the CLI says so in one line."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlve_jax import registry
from rlve_jax.env import DifficultyTooHigh, top_levels
from rlve_jax.pool import EnvPool

REPO = Path(__file__).resolve().parents[1]
PROMPT_CHARS = 65_536  # the prompt budget (the probe's time and memory budgets are the pool's limits below)


def test_every_environment_has_a_measured_top_level():
    names = registry.names()
    missing = [n for n in names if n not in top_levels()]
    assert not missing, f"run experiments/find_top_levels.py for {missing}"
    assert all(0 <= registry.make(n).max_difficulty <= 40 for n in names)


def test_every_environment_generates_at_its_top_level_within_the_budgets():
    """One seed per environment at its top level, two workers, the pool's 10 s timeout and a 2 GiB
    address-space cap (the probe held each to 2 CPU s and 1 GiB resident)."""
    envs = registry.make_all(registry.names())
    start = time.perf_counter()
    with EnvPool(workers=2, timeout_s=10.0, memory_limit_mb=2048) as pool:
        problems = pool.generate([(env.name, env.max_difficulty, 0) for env in envs])
    seconds = time.perf_counter() - start
    failed = [env.name for env, problem in zip(envs, problems) if problem is None]
    assert not failed, f"no problem at the top level within the budgets: {failed} ({pool.stats.failures})"
    too_long = [(p.env, len(p.prompt)) for p in problems if len(p.prompt) > PROMPT_CHARS]
    assert not too_long
    print(f"{len(envs)} environments at their top levels in {seconds:.1f} s")


def test_levels_above_the_top_are_refused():
    for env in registry.make_all(registry.names()):
        with pytest.raises(DifficultyTooHigh, match=f"{env.name}: difficulty {env.max_difficulty + 1} is above"):
            env.generate(env.max_difficulty + 1, 0)


@pytest.mark.parametrize("difficulty", ["1000000", "-3"])
def test_envs_show_rejects_out_of_range_levels_in_one_line(difficulty):
    result = subprocess.run([sys.executable, "-m", "rlve_jax.envs", "show", "Sorting", "--difficulty", difficulty],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error: Sorting")
