"""The command line fails at once, saying what to pass, on bad configs."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(*args):
    return subprocess.run([sys.executable, "-m", "rlve_jax.main", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def test_unknown_config_key_is_named_with_suggestions():
    result = run("--config=configs/tiny.py", "--config.rollout.tempreature=0.5")
    assert result.returncode != 0
    assert "unknown config keys: --config.rollout.tempreature (did you mean rollout.temperature" in result.stderr


def test_missing_model_says_what_to_pass(tmp_path):
    result = run("--config=configs/c16.py", f"--workdir={tmp_path}")
    assert result.returncode != 0 and "--config.model.path=DIR" in result.stderr
    result = run("--config=configs/c16.py", f"--workdir={tmp_path}", f"--config.model.path={tmp_path}/nowhere")
    assert result.returncode != 0 and "no config.json there" in result.stderr


def test_unimplemented_environment_is_listed(tmp_path):
    result = run("--config=configs/tiny.py", f"--workdir={tmp_path}", "--config.env.collection=Sorting,NoSuchEnv")
    assert result.returncode != 0 and "NoSuchEnv" in result.stderr
