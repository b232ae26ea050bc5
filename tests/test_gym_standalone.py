"""The gym installs and runs without the training stack: importing it, its pool, the `envs` CLI and the
TRL/verl adapters, and scoring through pool workers, never imports JAX, Flax or optax.

Each check runs in a fresh interpreter whose `sitecustomize` (first on PYTHONPATH, so the pool's worker
processes get it too) installs a meta-path finder that refuses those packages as if they were not installed.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BLOCKED = ("jax", "jaxlib", "flax", "optax", "orbax")

BLOCKER = textwrap.dedent(f"""
    import importlib.abc, sys

    class TrainingStackBlocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {BLOCKED!r}:
                raise ModuleNotFoundError(f"blocked by test_gym_standalone: {{name}}", name=name)
            return None

    sys.meta_path.insert(0, TrainingStackBlocker())
""")

IMPORTS_AND_SCORING = textwrap.dedent("""
    import sys
    import rlve_jax.gym
    from rlve_jax.gym import env, envs, integrations, pool, prompts, registry, scheduler, tokenizer
    from rlve_jax.gym.env import ANSWER_TAGS

    try:
        import jax
    except ModuleNotFoundError as error:
        assert "blocked by test_gym_standalone" in str(error)
    else:
        raise AssertionError("the blocker let jax through")
    assert not registry.import_errors(), registry.import_errors()  # every environment module imported
    print("environments", len(registry.names()))

    sorting = registry.make("Sorting")
    problems = [sorting.generate(1, seed) for seed in range(2)]
    rows = [integrations.problem_row(p) for p in problems]
    answers = ["\\\\boxed{" + sorting.reference(p) + "}" for p in problems]
    rewards = integrations.make_trl_reward(workers=1)(
        prompts=[r["prompt"] for r in rows], completions=answers, completion_ids=[[0]] * 2,
        **{k: [r[k] for r in rows] for k in ("reward_model", "extra_info", "data_source")})
    verl = integrations.compute_score(rows[0]["data_source"], answers[0], rows[0]["reward_model"]["ground_truth"],
                                      rows[0]["extra_info"], workers=1)
    with pool.EnvPool(workers=1) as p:
        verdicts = p.verify(problems, [f"<answer>{sorting.reference(q)}</answer>" for q in problems], ANSWER_TAGS)
    print("scores", rewards, verl["score"], [v.reward for v in verdicts])
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in {blocked!r})
    print("training modules loaded:", loaded)
""").replace("{blocked!r}", repr(BLOCKED))


@pytest.fixture(scope="module")
def blocked_env(tmp_path_factory):
    """The environment of a subprocess in which JAX, Flax and optax cannot be imported."""
    site = tmp_path_factory.mktemp("no_jax_site")
    (site / "sitecustomize.py").write_text(BLOCKER)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}


def run(args, env, cwd):
    result = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return result.stdout


def test_the_blocker_blocks(blocked_env, tmp_path):
    result = subprocess.run([sys.executable, "-c", "import optax"], env=blocked_env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "blocked by test_gym_standalone: optax" in result.stderr


def test_gym_pool_and_adapters_import_and_score_without_jax(blocked_env, tmp_path):
    out = run(["-c", IMPORTS_AND_SCORING], blocked_env, tmp_path)
    assert "environments 400" in out.splitlines()[0], out
    assert "scores [1.0, 1.0] 1.0 [1.0, 1.0]" in out, out  # the pool's workers ran without JAX too
    assert out.splitlines()[-1] == "training modules loaded: []"


def test_the_envs_cli_runs_without_jax(blocked_env, tmp_path):
    shown = run(["-m", "rlve_jax.gym.envs", "show", "Multiplication", "--difficulty", "1"], blocked_env, tmp_path)
    assert shown.startswith("# Multiplication  difficulty=1") and "# reference answer:" in shown
    run(["-m", "rlve_jax.gym.envs", "export", "--collection", "Sorting", "--difficulties", "0", "--per-level", "2",
         "--out", str(tmp_path / "p.jsonl")], blocked_env, tmp_path)
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 2
