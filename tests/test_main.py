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


def test_config_errors_are_one_line_before_any_model_work(tmp_path):
    result = run("--config=configs/tiny.py", f"--workdir={tmp_path}", "--config.optim.lr=nan", "--config.steps=-5",
                 "--config.env.workers=-1", "--config.env.timeout_s=0", "--config.train.micro_batch_size=0")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: bad config: ") and "Traceback" not in result.stderr
    for text in ("steps=-5", "optim.lr=nan", "env.workers=-1", "env.timeout_s=0.0", "train.micro_batch_size=0"):
        assert text in lines[0]
    assert not (tmp_path / "checkpoints").exists()  # nothing was set up


def test_verbose_keeps_the_traceback(tmp_path):
    result = run("--config=configs/tiny.py", f"--workdir={tmp_path}", "--config.optim.lr=-0.5", "--verbose")
    assert result.returncode != 0 and "Traceback" in result.stderr
    assert "optim.lr=-0.5 must be a finite number > 0" in result.stderr
