"""The memory planner: abstract compiles of the train step, prefill and decode on the 8 test devices,
the limit check, the command line's exit status and one-line errors, train-step temporaries linear in the
length, and the plan against a real Engine run: the same slots and cache bytes, and after a collection only
the resident state left on the devices."""

import dataclasses
import gc
import os
import subprocess
import sys

import jax
import numpy as np
import pytest
from flax import nnx

from rlve_jax import plan
from rlve_jax.defaults import CONFIGS, load_config_file, settings
from rlve_jax.generation import engine
from rlve_jax.models.model import Transformer
from rlve_jax.rl.train_step import init_optimizer, make_optimizer
from rlve_jax.runtime import memory, sharding
from test_trainer import REPO


def tiny_config(preset: str = "cpu.py", **overrides):
    """configs/mesh/<preset>:tiny (cpu.py: every test device, fsdp) with dotted overrides."""
    config = load_config_file(CONFIGS / "mesh" / preset, "tiny")
    config.model.dtype = "float32"
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
    # micro preset: 2 layers x (K, V) x 2 heads x 32 dims of f32 KV per token; 16 prompts x 16 samples x (128 + 16)
    assert parts["KV cache"] == 16 * 16 * (128 + 16) * 2 * 2 * 2 * 32 * 4 // 8
    resident = parts["parameters (training, sharded)"] + parts["optimizer state"]
    assert tiny_plan.resident == resident and parts["process baseline"] > 100e6 / 8  # the CPU process's RSS / 8
    totals = tiny_plan.totals
    assert set(totals) == {"train", "rollout"}  # tiny: eval.every = 0
    assert totals["train"] >= parts["process baseline"] + resident + parts["activations + temporaries"]
    assert tiny_plan.total == max(totals.values())
    assert tiny_plan.limit is None and tiny_plan.over() is None  # CPU: no memory size known
    assert "peak" in tiny_plan.table() and "fits" in tiny_plan.table()


def test_over_the_limit_is_one_line(tiny_plan, monkeypatch):
    small = dataclasses.replace(tiny_plan, limit=1e6)
    reason = small.over()
    assert reason and "\n" not in reason and "exceeds the device limit 0.001 GB" in reason
    # the largest part of the peak phase or of what is shared (the process baseline grows with the test process)
    biggest = max((part for part in tiny_plan.parts if part[0] in (max(tiny_plan.totals, key=tiny_plan.totals.get),
                                                                   *plan.SHARED)), key=lambda part: part[2])
    assert f"largest part: {biggest[1]} " in reason
    assert biggest[1] in ("activations + temporaries", "process baseline")  # the tiny run's train step
    monkeypatch.setattr(plan, "plan", lambda config, *args: dataclasses.replace(
        tiny_plan, limit=memory.device_limit(config.mesh.device_memory_gb)))
    model_config = plan.model_config_for(tiny_config())[0]
    with pytest.raises(MemoryError, match="exceeds the device limit"):
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


def test_command_line_prints_a_config_error_as_one_line():
    result = subprocess.run([sys.executable, "-m", "rlve_jax.plan", "--config=configs/mesh/cpu.py:tiny",
                             "--config.rollout.cache_budget_tokens=100"], cwd=REPO, capture_output=True, text=True,
                            timeout=600, env={**os.environ, "XLA_FLAGS": "", "JAX_PLATFORMS": "cpu"})
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert lines == ["error: a KV budget of 100 tokens holds no decode slot of 144 tokens beside its prefill: set "
                     "rollout.cache_budget_tokens >= 288 (or lower the prompt/response token limits)  (--verbose "
                     "for the traceback)"]


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


def device_bytes(arrays, device) -> int:
    """Bytes of the distinct buffers the arrays hold on `device` (an array's shards are arrays of their own,
    views of its buffers: counted once, by address)."""
    buffers = {}
    for x in arrays:
        for shard in x.addressable_shards:
            if shard.device == device:
                buffers[shard.data.unsafe_buffer_pointer()] = shard.data.nbytes
    return sum(buffers.values())


def live_bytes(device) -> int:
    """Bytes of every live jax.Array's buffers on `device`."""
    gc.collect()
    return device_bytes(jax.live_arrays(), device)


def run_collection(config, planned: plan.Plan):
    """The trainer's state (parameters and optimizer state on the training mesh) and one collection of a
    round's rows through a real Engine built as rollout.make_engine builds it. -> (resident bytes before,
    live bytes during the run (max), after it, the engine's slots and per-device cache bytes seen in the
    run), all on the first device and net of what was live before."""
    cfg = plan.model_config_for(config)[0]
    mesh = sharding.make_mesh(config.mesh.data, config.mesh.fsdp, config.mesh.tensor)
    sampler_mesh = sharding.sampler_mesh(mesh, config.mesh.sampler_tensor or config.mesh.tensor)
    device = mesh.devices.flat[0]
    gc.collect()
    before = live_bytes(device)
    graphdef, params, rest = nnx.split(sharding.shard_model(Transformer(cfg, rngs=nnx.Rngs(0)), mesh), nnx.Param, ...)
    optim = settings(config).learner.optim
    opt_state = init_optimizer(make_optimizer(optim), params, mesh)  # noqa: F841  (held, as the trainer does)
    resident = live_bytes(device) - before
    r = config.rollout
    eng = engine.Engine(cfg, max_prompt_tokens=r.max_prompt_tokens, max_new_tokens=r.max_response_tokens,
                        budget_tokens=r.cache_budget_tokens or None, segment_steps=r.segment_steps, mesh=sampler_mesh)
    sampler_model = nnx.merge(graphdef, sharding.sampler_state(params, mesh, sampler_mesh), rest)
    rng = np.random.default_rng(0)
    prompts = [rng.integers(3, cfg.vocab_size, int(rng.integers(20, r.max_prompt_tokens))).tolist()
               for _ in range(r.oversample_prompts)]
    rows = [engine.Row(i * r.samples_per_prompt + g, prompts[i], r.max_response_tokens)
            for i in range(len(prompts)) for g in range(r.samples_per_prompt)]
    seen = []

    def observe() -> bool:
        seen.append((live_bytes(device) - before, eng._active, device_bytes(jax.tree.leaves(eng._state.cache), device)))
        return False

    eng.run(sampler_model, rows, jax.random.key(0), should_stop=observe)
    assert all(row.done for row in rows)
    del sampler_model
    return resident, max(s[0] for s in seen), live_bytes(device) - before, seen[0][1], seen[0][2]


@pytest.mark.parametrize("preset, overrides", [
    ("cpu.py", {}),  # 8 devices fsdp, the engine's CPU default budget: 32 slots for the round's 32 rows
    ("gpu8_tp2.py", {"rollout.cache_budget_tokens": 20 * 144, "mesh.sampler_tensor": 2}),  # 4 x 2: 16 slots
])
def test_a_real_engine_run_matches_the_plan_and_leaves_only_the_resident_state(preset, overrides):
    config = tiny_config(preset, **{"mesh.device_memory_gb": 0.0, "rollout.oversample_prompts": 4, **overrides})
    planned = plan.plan(config)
    parts = {what: size for phase, what, size, _ in planned.parts if phase in ("resident", "rollout")}
    resident, during, after, slots, cache = run_collection(config, planned)
    print(f"{preset}: resident {resident:,} B (plan {planned.resident:,}), during {during:,}, after {after:,}; "
          f"{slots} slots, cache {cache:,} B/device (plan {planned.sizes['rollout slots']}, {parts['KV cache']:,})")
    assert slots == planned.sizes["rollout slots"] and cache == parts["KV cache"]
    assert resident == pytest.approx(planned.resident, rel=0.05)
    # during the run: the slot cache and the sampler's copy (less the parameters already replicated) on top
    assert during == pytest.approx(resident + parts["KV cache"] + parts["sampler parameters (full copy)"], rel=0.05)
    assert after == pytest.approx(planned.resident, rel=0.05)  # the slot cache and the copy are gone


def test_a_compiler_out_of_device_memory_is_a_one_line_memory_error():
    """libtpu's compiler refuses a program larger than the chip's HBM (c256's engine segment on v5e:4x4:
    104.83 GB of temporaries): the plan reports it as not fitting, in one line."""
    class Lowered:
        def compile(self):
            raise jax.errors.JaxRuntimeError("RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory\n"
                                             "required for HLO temporaries (104.83G) exceeds available HBM (15.75G).")

    with pytest.raises(MemoryError, match=r"^the decode segment does not compile: RESOURCE_EXHAUSTED") as error:
        plan._compile(Lowered(), "the decode segment")
    assert "\n" not in str(error.value)
