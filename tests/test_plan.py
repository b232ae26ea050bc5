"""The memory planner: abstract compiles of the train step, prefill and decode on the 8 test devices,
the limit check, the command line's exit status and one-line errors, train-step temporaries linear in the
length, and the plan against a real Engine run: the same slots and cache bytes, and after a collection only
the resident state left on the devices."""

import dataclasses
import gc
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import jax
import numpy as np
import pytest
from flax import nnx

from rlve_jax import plan
from rlve_jax.defaults import CONFIGS, load_config_file, settings
from rlve_jax.generation import engine
from rlve_jax.generation.generator import make_generator
from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.models.model import Transformer
from rlve_jax.models.policy import Policy
from rlve_jax.rl.collector import Collection, GroupRecords
from rlve_jax.rl.learner import Learner
from rlve_jax.rl.rollout import Group, RolloutStats
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
    monkeypatch.setattr(plan, "plan", lambda config, *args, **kwargs: dataclasses.replace(
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


def run_collection(config, rows_from=None):
    """The trainer's state (parameters and optimizer state on the training mesh) and one collection of a
    round's rows (or `rows_from(policy)`'s) through the real engine make_generator builds (eval_generator's for
    an evaluation's rows). -> per device, the first training device's and the first sampler device's, net of
    what was live before: (resident before the run, live during it (max), after it), the engine, and the slots and
    the sampler device's cache bytes seen in the run."""
    s = settings(config)
    cfg = plan.model_config_for(config)[0]
    mesh, sampler_mesh = sharding.meshes(s.mesh)
    devices = {"train": mesh.devices.flat[0], "sampler": sampler_mesh.devices.flat[0]}
    gc.collect()
    before = {name: live_bytes(d) for name, d in devices.items()}
    policy = Policy(*nnx.split(sharding.shard_model(Transformer(cfg, rngs=nnx.Rngs(0)), mesh), nnx.Param, ...),
                    types.SimpleNamespace(pad_id=0, eos_ids=[]), None, mesh, sampler_mesh, cfg)
    opt_state = init_optimizer(make_optimizer(s.learner.optim), policy.params, mesh)  # noqa: F841  (held)
    resident = {name: live_bytes(d) - before[name] for name, d in devices.items()}
    r = config.rollout
    if rows_from is None:
        generator = make_generator("continuous", policy, max_prompt_tokens=r.max_prompt_tokens,
                                   max_new_tokens=r.max_response_tokens,
                                   cache_budget_tokens=r.cache_budget_tokens or None)
        rng = np.random.default_rng(0)
        prompts = [rng.integers(3, cfg.vocab_size, int(rng.integers(20, r.max_prompt_tokens))).tolist()
                   for _ in range(-(-r.oversample_prompts // jax.process_count()))]
        rows = [engine.Row(i * r.samples_per_prompt + g, prompts[i], r.max_response_tokens)
                for i in range(len(prompts)) for g in range(r.samples_per_prompt)]
    else:
        generator, rows = rows_from(policy)
    eng = generator.engine
    seen = []

    def observe() -> bool:
        seen.append(({name: live_bytes(d) - before[name] for name, d in devices.items()},
                     (eng._active, device_bytes(jax.tree.leaves(eng._state.cache), devices["sampler"]))))
        return False

    eng.run(policy.sampler_model(), rows, jax.random.key(0), should_stop=observe)
    assert all(row.done for row in rows)
    after = {name: live_bytes(d) - before[name] for name, d in devices.items()}
    during = {name: max(seen_[0][name] for seen_ in seen) for name in devices}
    return resident, during, after, eng, seen[0][1]


def plan_parts(planned: plan.Plan, *phases: str) -> dict[str, int]:
    return {what: size for phase, what, size, _ in planned.parts if phase in phases}


@pytest.mark.parametrize("preset, overrides", [
    ("cpu.py", {}),  # 8 devices fsdp, the engine's CPU default budget: 32 slots for the round's 32 rows
    ("gpu8_tp2.py", {"rollout.cache_budget_tokens": 20 * 144, "mesh.sampler_tensor": 2}),  # 4 x 2: 16 slots
])
def test_a_real_engine_run_matches_the_plan_and_leaves_only_the_resident_state(preset, overrides):
    config = tiny_config(preset, **{"mesh.device_memory_gb": 0.0, "rollout.oversample_prompts": 4, **overrides})
    planned = plan.plan(config)
    parts = plan_parts(planned, "resident", "rollout")
    resident, during, after, _, (slots, cache) = run_collection(config)
    resident, during, after = resident["train"], during["train"], after["train"]  # the same devices
    print(f"{preset}: resident {resident:,} B (plan {planned.resident:,}), during {during:,}, after {after:,}; "
          f"{slots} slots, cache {cache:,} B/device (plan {planned.sizes['rollout slots']}, {parts['KV cache']:,})")
    assert slots == planned.sizes["rollout slots"] and cache == parts["KV cache"]
    assert resident == pytest.approx(planned.resident, rel=0.05)
    # during the run: the slot cache and the sampler's copy (less the parameters already replicated) on top
    assert during == pytest.approx(resident + parts["KV cache"] + parts["sampler parameters (full copy)"], rel=0.05)
    assert after == pytest.approx(planned.resident, rel=0.05)  # the slot cache and the copy are gone


def test_split_meshes_plan_the_training_state_on_the_training_devices_and_the_engine_on_the_rollout_devices():
    """mesh.rollout_devices=4 of the 8: the parameters and optimizer state live on the 4 training devices alone,
    the slot cache and the sampler's copy on the rollout devices alone, each as the plan counts them."""
    config = tiny_config(**{"mesh.device_memory_gb": 0.0, "rollout.oversample_prompts": 4,
                            "mesh.rollout_devices": 4})
    planned = plan.plan(config)
    parts = plan_parts(planned, "resident", "rollout")
    resident, during, after, _, (slots, cache) = run_collection(config)
    print(f"split: resident {resident}, during {during}, after {after}; plan resident {planned.resident:,}, "
          f"rollout {planned.totals['rollout']:,}, train {planned.totals['train']:,}")
    assert planned.split and resident["sampler"] == 0 and after["sampler"] == 0
    assert resident["train"] == pytest.approx(planned.resident, rel=0.05)
    # the collection put nothing on the training devices but a few scalars (the sampling key)
    assert during["train"] == pytest.approx(resident["train"], rel=0.01)
    assert after["train"] == pytest.approx(resident["train"], rel=0.01)
    assert slots == planned.sizes["rollout slots"] and cache == parts["KV cache"]
    assert during["sampler"] == pytest.approx(parts["KV cache"] + parts["sampler parameters (full copy)"], rel=0.05)
    baseline = plan_parts(planned, "baseline")["process baseline"]
    assert planned.totals["rollout"] - baseline == sum(  # the rollout devices' total holds no training state
        size for phase, what, size, _ in planned.parts if phase == "rollout" and not what.endswith("temporaries")
    ) + max(size for phase, what, size, _ in planned.parts if phase == "rollout" and what.endswith("temporaries"))


def test_an_evaluation_is_planned_for_the_eval_sets_longest_prompt():
    """The in-training evaluation's engine is sized for the held-out subset's longest prompt (longer than the
    tiny run's 128-token rollout prompts): the plan's eval slots are as long as the real eval engine's, and hold
    its cache bytes."""
    from rlve_jax.evaluation import evaluate
    from rlve_jax.models.policy import load_policy

    config = tiny_config(**{"mesh.device_memory_gb": 0.0, "eval.every": 1, "eval.problems": 16,
                            "eval.batch_prompts": 4, "eval.max_response_tokens": 8})
    planned = plan.plan(config)
    s = settings(config)
    problems = evaluate.heldout_subset(evaluate.load_problems(), config.eval.problems)

    def eval_rows(fake):
        with tempfile.TemporaryDirectory() as scratch:
            real = load_policy(s.model, s.tokenizer, s.mesh, seed=0, env_names=["IntegerFactorizationCounting"],
                               workdir=Path(scratch))
        policy = dataclasses.replace(fake, tokenizer=real.tokenizer, prompt_format=real.prompt_format)
        generator = evaluate.eval_generator(policy, problems, s.eval_sampling, s.generator)
        prompts = sorted((policy.prompt_format.encode(p.prompt) for p in problems), key=len)[-4:]  # the longest
        return generator, [engine.Row(i, p, s.eval_sampling.max_new_tokens) for i, p in enumerate(prompts)]

    _, _, _, eng, (slots, cache) = run_collection(config, eval_rows)
    parts = plan_parts(planned, "eval")
    print(f"eval: slot length {eng.slot_length} (plan {planned.sizes['eval slot length']}), cache {cache:,} B/device "
          f"(plan {parts['KV cache']:,})")
    assert eng.slot_length == planned.sizes["eval slot length"] > engine.slot_length(
        config.rollout.max_prompt_tokens, config.eval.max_response_tokens)
    assert slots == planned.sizes["eval slots"] and cache == parts["KV cache"]


def test_the_old_logprobs_of_later_mini_batches_are_planned_as_held():
    """train.steps_per_rollout=2: the Learner's update holds the second mini-batch's old logprobs, as many bytes
    per device as the plan counts (every sequence at the longest length: the plan's bound)."""
    config = tiny_config(**{"mesh.device_memory_gb": 0.0, "train.steps_per_rollout": 2,
                            "train.micro_batch_size": 32})
    planned = plan.plan(config)
    s = settings(config)
    cfg = plan.model_config_for(config)[0]
    mesh, sampler_mesh = sharding.meshes(s.mesh)
    policy = Policy(*nnx.split(sharding.shard_model(Transformer(cfg, rngs=nnx.Rngs(0)), mesh), nnx.Param, ...),
                    types.SimpleNamespace(pad_id=0, eos_ids=[]), None, mesh, sampler_mesh, cfg)
    learner = Learner(policy, s.learner)
    held = []
    old_logprobs = learner.fns.old_logprobs
    learner.fns = dataclasses.replace(learner.fns, old_logprobs=lambda *args: held.append(old_logprobs(*args))
                                      or held[-1])
    r = config.rollout
    groups, g = r.prompts_per_step, r.samples_per_prompt
    rng = np.random.default_rng(0)
    mine = [Group(Problem("A", 0, i, "", {}, {}), rng.integers(3, cfg.vocab_size, r.max_prompt_tokens).tolist(),
                  [rng.integers(3, cfg.vocab_size, r.max_response_tokens).tolist() for _ in range(g)], [""] * g,
                  [np.full(r.max_response_tokens, -1.0, np.float32)] * g, [False] * g,
                  [Verdict(float(j % 2), j % 2 == 1, True, "") for j in range(g)]) for i in range(groups)]
    records = GroupRecords(np.zeros(groups, np.int32), np.zeros(groups, np.int32), np.zeros(groups, np.int32),
                           np.full(groups, r.max_prompt_tokens, np.int32), np.ones(groups, bool), np.ones(groups, bool),
                           np.tile(np.arange(g) % 2, (groups, 1)).astype(float), np.zeros((groups, g), bool),
                           np.ones((groups, g), bool), np.full((groups, g), r.max_response_tokens, np.int32),
                           np.zeros((groups, g), bool))
    learner.update(Collection(mine, records, np.arange(groups), RolloutStats(), {}))
    planned_bytes = plan_parts(planned, "train")["old logprobs (steps_per_rollout > 1)"]
    print(f"old logprobs: {device_bytes(held, mesh.devices.flat[0]):,} B on a device (plan {planned_bytes:,})")
    assert len(held) == 2 and device_bytes(held, mesh.devices.flat[0]) == planned_bytes


def test_a_program_the_compiler_refuses_is_planned_as_not_fitting_in_one_line(tiny_plan):
    """libtpu's compiler refuses a program larger than the chip's HBM (c256's train step on v5e:2x2: 24.83 GB of
    temporaries): the plan goes on planning the other phases, counts what the compiler asked for, and does not
    fit, saying why in one line."""
    class Lowered:
        def compile(self):
            raise jax.errors.JaxRuntimeError("RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory\n"
                                             "required for HLO temporaries (104.83G) exceeds available HBM (15.75G).")

    refused = plan._compile(Lowered(), "the decode segment")
    assert refused.temp_bytes == int(104.83 * 2**30) and "\n" not in refused.reason
    assert refused.reason.startswith("the decode segment does not compile: RESOURCE_EXHAUSTED")
    parts = [*tiny_plan.parts, ("rollout", "decode temporaries", plan._bytes(refused), plan._compiled(refused, ""))]
    assert dataclasses.replace(tiny_plan, parts=parts).over() == refused.reason
