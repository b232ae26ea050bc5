"""The memory planner: abstract compiles of the train step, prefill and decode on the 8 test devices,
the limit check, the command line's exit status, train-step temporaries linear in the length."""

import dataclasses
import os
import subprocess
import sys

import pytest

from rlve_jax import plan
from rlve_jax.runtime import sharding
from rlve_jax.defaults import CONFIGS, load_config_file
from test_trainer import REPO


def tiny_config(**overrides):
    """configs/mesh/cpu.py:tiny (every test device, fsdp) with dotted overrides."""
    config = load_config_file(CONFIGS / "mesh" / "cpu.py", "tiny")
    for key, value in overrides.items():
        section, name = key.split(".")
        setattr(config[section], name, value)
    return config


@pytest.fixture(scope="module")
def tiny_plan():
    return plan.plan(tiny_config(**{"mesh.device_memory_gb": 0.0}))


def test_plan_parts_and_totals(tiny_plan):
    parts = {what: size for _, what, size, _ in tiny_plan.parts}
    assert parts["activations + temporaries"] > 0 and parts["prefill temporaries"] > 0
    assert parts["decode temporaries"] > 0
    # micro preset: 4 x 128 x 2 layers x 32 dims of f32 KV per token; 8 prompts x 8 samples x (128 + 16) tokens
    assert parts["KV cache"] == 16 * 8 * (128 + 16) * 2 * 2 * 2 * 32 * 4 // 8
    resident = parts["parameters (training, sharded)"] + parts["optimizer state"]
    assert tiny_plan.train_total >= resident + parts["activations + temporaries"]
    assert tiny_plan.total == max(tiny_plan.train_total, tiny_plan.rollout_total)
    assert tiny_plan.limit is None and tiny_plan.over() is None  # CPU: no memory size known
    assert "peak" in tiny_plan.table() and "fits" in tiny_plan.table()


def test_over_the_limit_is_one_line(tiny_plan, monkeypatch):
    small = dataclasses.replace(tiny_plan, limit=1e6)
    reason = small.over()
    assert reason and "\n" not in reason and "exceeds mesh.device_memory_gb=0.001" in reason
    assert "largest part: activations + temporaries" in reason  # the train step's, in the tiny run
    monkeypatch.setattr(plan, "plan", lambda config, *args: dataclasses.replace(tiny_plan,
                                                                                 limit=plan.device_limit(config)))
    model_config = plan.model_config_for(tiny_config())[0]
    with pytest.raises(MemoryError, match="exceeds mesh.device_memory_gb"):
        plan.check(tiny_config(**{"mesh.device_memory_gb": 0.001}), model_config)
    assert plan.check(tiny_config(**{"mesh.device_memory_gb": 80}), model_config).over() is None
    assert plan.check(tiny_config(), model_config) is None  # CPU, no limit given: nothing to check


def test_command_line_exits_1_with_the_reason():
    result = subprocess.run([sys.executable, "-m", "rlve_jax.plan", "--config=configs/mesh/cpu.py:tiny",
                             "--config.mesh.device_memory_gb=0.001"], cwd=REPO, capture_output=True, text=True,
                            timeout=600, env={**os.environ, "XLA_FLAGS": "", "JAX_PLATFORMS": "cpu"})
    assert result.returncode == 1, result.stderr[-2000:]
    assert "activations + temporaries" in result.stdout and "DOES NOT FIT" in result.stdout
    assert result.stderr.strip().splitlines()[-1].startswith("does not fit: ")


def test_train_step_temporaries_are_linear_in_the_length():
    """4x the tokens per sequence (one row per device): at most 5x the compiled temporaries."""
    def train_temp(response_tokens: int) -> int:
        config = tiny_config(**{"rollout.max_prompt_tokens": 64, "rollout.max_response_tokens": response_tokens,
                                "train.max_tokens_per_micro_batch": 8 * (64 + response_tokens)})
        model_config = plan.model_config_for(config)[0]
        mesh = sharding.make_mesh()
        return {what: size for _, what, size, _ in plan.train_parts(config, model_config, mesh)}[
            "activations + temporaries"]

    short, long = train_temp(2048 - 64), train_temp(8192 - 64)
    print(f"train-step temporaries: {short / 2**20:.1f} MiB at 2048 tokens, {long / 2**20:.1f} MiB at 8192")
    assert long <= 5 * short
