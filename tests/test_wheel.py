"""A non-editable install works: build the wheel, install it into a fresh virtual environment outside the
checkout, and from a directory outside the checkout show a problem, verify responses through the worker
pool, look up a level cap, load a config and read the held-out set and the benchmarks."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rlve_jax.gym import integrations, registry

REPO = Path(__file__).resolve().parents[1]

# Everything below runs in the installed copy; each line it prints is checked against the checkout's files.
INSTALLED_CHECKS = textwrap.dedent("""
    import json, sys
    import rlve_jax
    from rlve_jax import defaults
    from rlve_jax.evaluation import evaluate
    from rlve_jax.gym import registry

    print(json.dumps({
        "package": rlve_jax.__file__,
        "sorting_cap": registry.make("Sorting").max_difficulty,
        "c16_collection": defaults.experiment("c16").env.collection,
        "gpu8_fsdp": defaults.load_config_file(defaults.CONFIGS / "mesh" / "gpu8.py", "c16").mesh.fsdp,
        "heldout": len(evaluate.load_problems()),
        "benchmarks": {name: len(evaluate.load_benchmark(name)) for name in evaluate.BENCHMARKS},
    }))
""")


def run(cmd, cwd, **kwargs):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=240, **kwargs)
    assert result.returncode == 0, f"{cmd} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv bin directory, a working directory outside the checkout) with the built wheel installed."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # a copy, so that the build writes nothing into the checkout
    shutil.copytree(REPO / "rlve_jax", source / "rlve_jax", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", source)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(root / "dist"),
         str(source)], cwd=root)
    (wheel,) = (root / "dist").glob("rlve_jax-*.whl")
    # The dependencies come from this interpreter's site-packages (no network); this pip installs (no ensurepip).
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(root / "venv")], cwd=root)
    bin_dir = root / "venv" / "bin"
    run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--no-deps", "-q", str(wheel)],
        cwd=root)
    workdir = root / "elsewhere"
    workdir.mkdir()
    return bin_dir, workdir


def test_the_installed_wheel_holds_its_data_and_configs(installed):
    bin_dir, workdir = installed
    report = json.loads(run([str(bin_dir / "python"), "-c", INSTALLED_CHECKS], cwd=workdir).splitlines()[-1])
    assert Path(report["package"]).is_relative_to(bin_dir.parent), report["package"]  # not the checkout
    levels = json.loads((REPO / "rlve_jax" / "gym" / "top_levels.json").read_text())["levels"]
    assert report["sorting_cap"] == levels["Sorting"]["max_difficulty"]
    assert report["c16_collection"] == "C16" and report["gpu8_fsdp"] == 8
    assert report["heldout"] == 2500
    assert report["benchmarks"] == {"aime24": 30, "aime25": 30, "omega500": 500, "olympiadbench": 675, "bbeh": 368}


def test_the_installed_cli_shows_and_verifies_through_the_pool(installed):
    bin_dir, workdir = installed
    shown = run([str(bin_dir / "rlve-envs"), "show", "Sorting", "--difficulty", "2", "--seed", "1"], cwd=workdir)
    assert shown.startswith("# Sorting  difficulty=2  seed=1") and "# reference answer:" in shown
    run([str(bin_dir / "python"), "-m", "rlve_jax.gym.envs", "export", "--collection", "Sorting,Multiplication",
         "--difficulties", "0-1", "--per-level", "1", "--out", "p.jsonl"], cwd=workdir)
    answers = []  # the reference answers, from the checkout's copy of the gym
    for line in (workdir / "p.jsonl").read_text().splitlines():
        problem, _ = integrations.row_problem(json.loads(line))
        answers.append(json.dumps({"response": "\\boxed{" + registry.make(problem.env).reference(problem) + "}"}))
    (workdir / "r.jsonl").write_text("\n".join(answers) + "\n")
    scores = run([str(bin_dir / "rlve-envs"), "verify", "--problems", "p.jsonl", "--responses", "r.jsonl",
                  "--workers", "2"], cwd=workdir)
    assert scores.splitlines()[-1].split()[:4] == ["all", "4", "1.0000", "1.0000"], scores


def test_a_missing_data_file_is_an_error_not_an_empty_table(tmp_path, monkeypatch):
    from rlve_jax.gym import env

    monkeypatch.setattr(env, "TOP_LEVELS_PATH", tmp_path / "top_levels.json")
    env.top_levels.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="lacks its package data"):
            registry.make("Sorting").max_difficulty
    finally:
        env.top_levels.cache_clear()
