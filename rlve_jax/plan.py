"""Memory planner: will this config fit its devices? Answered before any weight is loaded.

    python -m rlve_jax.plan --config=configs/mesh/gpu8.py:c256 [--config.model.preset=qwen2.5-1.5b] [...]

Compiles (jax.jit(...).lower(abstract arrays with shardings).compile()) the train step (one micro-batch's
gradient accumulation, for the largest micro-batch the config can form, and the optimiser update) and the
generation components' own jitted functions at the config's real shapes on the current backend's devices:
the rollout engine's prefill and decode segment (or the static sampler's chunk), sized by the components
themselves (engine.Engine.sizing / slots_for_rows / abstract_state, sampler.chunk_prompts / cache_struct).
Prints per device: the process baseline, parameters, optimizer state, gradients, activations and
temporaries (compiled.memory_analysis()), KV cache and the total. On CPU, a mesh larger than the host's
devices gets forced CPU devices (XLA_FLAGS, set here before JAX starts), so 8 CPU devices stand in for an
8-GPU node. Exits 1 with a one-line reason when the total exceeds the device limit (mesh.device_memory_gb,
or the allocator's own limit where the backend reports it), 2 with one line for a config error.

The peak is the largest of the phases, each on top of what stays resident (the process baseline, the
training parameters and optimizer state): the train step (gradient accumulator, the step's batch, its
temporaries), the rollout (the sampler's parameter copy, the KV cache, the outputs, the larger of
prefill's and decode's temporaries) and the evaluation (the same at config.eval's lengths and batch).
The engine frees its slot cache when a collection ends (Engine.release), the sampler's parameter copy
lives for one collection and the train step's buffers for one step: the phases do not overlap.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import sys
from typing import Any, Callable

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.models import attention, decode_attention, lora as lora_lib
from rlve_jax.rl import losses
from rlve_jax.generation import engine, sampler
from rlve_jax.runtime import distributed, sharding, trainable
from rlve_jax.rl.batching import SequenceBatch, bucket, fine_bucket
from rlve_jax.models.model import ModelConfig

DEFAULT_SHAPE = "r1-distill-qwen-1.5b"  # the paper's model, when the config names none
GB = 1e9
PHASES = ("train", "rollout", "eval")
SHARED = ("baseline", "resident")  # held through every phase


@dataclasses.dataclass
class Plan:
    """Per-device bytes of each part, each phase's total and the limit they are held to."""

    title: str
    notes: list[str]
    parts: list[tuple[str, str, int, str]]  # (phase, what, bytes per device, detail)
    limit: float | None  # bytes; None: unknown (no check)
    sizes: dict[str, int] = dataclasses.field(default_factory=dict)  # e.g. "rollout slots": the engine's

    def phase_total(self, phase: str) -> int:
        """Shared parts + the phase's parts, of which the temporaries count as their largest (one program
        runs at a time)."""
        own = [(what, size) for p, what, size, _ in self.parts if p == phase]
        temporaries = [size for what, size in own if what.endswith("temporaries")]
        return (sum(size for p, _, size, _ in self.parts if p in SHARED)
                + sum(size for what, size in own if not what.endswith("temporaries")) + max(temporaries, default=0))

    @property
    def totals(self) -> dict[str, int]:
        return {phase: self.phase_total(phase) for phase in PHASES if any(p[0] == phase for p in self.parts)}

    @property
    def total(self) -> int:
        return max(self.totals.values(), default=0)

    @property
    def resident(self) -> int:
        """What stays allocated between phases (baseline excluded): training parameters, optimizer state."""
        return sum(size for phase, _, size, _ in self.parts if phase == "resident")

    def over(self) -> str | None:
        """The one-line reason the plan does not fit, or None."""
        if self.limit is None or self.total <= self.limit:
            return None
        phase = max(self.totals, key=self.totals.get)
        biggest = max((p for p in self.parts if p[0] in (phase, *SHARED)), key=lambda p: p[2])
        return (f"{self.total / GB:.1f} GB per device ({'train step' if phase == 'train' else phase}) exceeds "
                f"the device limit {self.limit / GB:g} GB (mesh.device_memory_gb, or the allocator's); largest "
                f"part: {biggest[1]} {biggest[2] / GB:.1f} GB ({biggest[3]})")

    def table(self) -> str:
        lines = [self.title, *[f"  note: {n}" for n in self.notes],
                 f"  {'phase':9s} {'per device':34s} {'GB':>8s}  detail"]
        for phase, what, size, detail in self.parts:
            lines.append(f"  {phase:9s} {what:34s} {size / GB:8.2f}  {detail}")
        limit = "no limit known" if self.limit is None else f"limit {self.limit / GB:g} GB"
        for phase, size in self.totals.items():
            lines.append(f"  {'total':9s} {phase + ' (shared + ' + phase + ')':34s} {size / GB:8.2f}")
        lines.append(f"  {'total':9s} {'peak':34s} {self.total / GB:8.2f}  {limit}: "
                     + ("fits" if self.over() is None else "DOES NOT FIT"))
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# Shapes


def model_config_for(config: ml_collections.ConfigDict) -> tuple[ModelConfig, str]:
    """The model shape (config.model.path's config.json, else config.model.preset, else the default)
    with the config tree's numerics, and where it came from."""
    from rlve_jax.models.policy import check_decode_attention, model_overrides

    overrides = model_overrides(config.model)
    if config.model.path:
        cfg, source = ModelConfig.from_hf(config.model.path, **overrides), f"{config.model.path}/config.json"
    elif config.model.preset:
        cfg, source = ModelConfig.preset(config.model.preset, **overrides), f"preset {config.model.preset}"
    else:
        cfg, source = (ModelConfig.preset(DEFAULT_SHAPE, **overrides), f"preset {DEFAULT_SHAPE} (the config names "
                       "no model: pass --config.model.path or --config.model.preset)")
    return check_decode_attention(cfg), source


def largest_micro_batch(config: ml_collections.ConfigDict, data_parallel: int) -> tuple[int, int]:
    """(rows, padded length) of the largest micro-batch a step can form."""
    r, t = config.rollout, config.train
    longest = (r.max_prompt_tokens or 2048) + r.max_response_tokens
    if t.max_tokens_per_micro_batch:
        length = fine_bucket(longest)
        rows = t.max_tokens_per_micro_batch // length // data_parallel * data_parallel
        if not rows:
            raise ValueError(f"train.max_tokens_per_micro_batch={t.max_tokens_per_micro_batch} must hold one "
                             f"sequence of up to {length} tokens per data-parallel device: at least "
                             f"{data_parallel * length}")
        return rows, length
    return t.micro_batch_size, bucket(longest)


# ---------------------------------------------------------------------------
# Compiling with abstract arrays


def _abstract(tree, shardings):
    return jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), tree, shardings)


def per_device_bytes(tree) -> int:
    """Bytes of one device's shards of an abstract tree (the largest device's, with uneven shardings)."""
    totals: dict = {}
    for x in jax.tree.leaves(tree):
        for device, index in x.sharding.devices_indices_map(x.shape).items():
            n = math.prod(len(range(*s.indices(d))) for s, d in zip(index, x.shape))
            totals[device] = totals.get(device, 0) + n * jnp.dtype(x.dtype).itemsize
    return max(totals.values(), default=0)


def _compile(lowered, what: str):
    """lowered.compile(); a compiler that runs out of device memory (a TPU compile) raises MemoryError with
    its one-line reason."""
    try:
        return lowered.compile()
    except jax.errors.JaxRuntimeError as error:
        if "RESOURCE_EXHAUSTED" not in str(error):
            raise
        raise MemoryError(f"{what} does not compile: {' '.join(str(error).split())}") from None


def _temp(compiled) -> int:
    stats = compiled.memory_analysis()
    return int(stats.temp_size_in_bytes) if stats is not None else 0


def _batch_struct(rows: int, length: int, batch: NamedSharding) -> SequenceBatch:
    s = lambda shape, dtype: jax.ShapeDtypeStruct(shape, dtype, sharding=batch)  # noqa: E731
    return SequenceBatch(s((rows, length), jnp.int32), s((rows, length), jnp.int32), s((rows, length), jnp.bool_),
                         s((rows, length), jnp.float32), s((rows, length), jnp.float32), s((rows,), jnp.float32))


def plan(config: ml_collections.ConfigDict, model_config: ModelConfig | None = None, title: str = "",
         devices: list | None = None) -> Plan:
    """Compile the config's train step and generation abstractly on this backend's devices, or on `devices`
    (tpu_topology's: a TPU slice compiled for from this host), with no weights."""
    notes = []
    if model_config is None:
        model_config, source = model_config_for(config)
        notes.append(f"model shape: {source}")
    cfg = model_config
    tensor = config.mesh.sampler_tensor or config.mesh.tensor
    if devices is None or config.mesh.rollout_devices:  # mesh.rollout_devices: two disjoint sub-meshes
        mesh, sampler_mesh = sharding.make_meshes(config.mesh.data, config.mesh.fsdp, config.mesh.tensor, tensor,
                                                  config.mesh.rollout_devices, devices)
    else:
        mesh = sharding.make_mesh(config.mesh.data, config.mesh.fsdp, config.mesh.tensor, devices=devices)
        sampler_mesh = first_host_mesh(mesh, tensor)
    device = mesh.devices.flat[0]
    # "auto" attention and decode attention: the platform compiled for's (a TPU slice from a CPU host: TPU kernels)
    cfg = dataclasses.replace(cfg, attention_impl=attention.resolve(cfg.attention_impl, device.platform),
                              decode_attention=cfg.decode_attention or decode_attention.default_impl(cfg.head_dim,
                                                                                                    device.platform))
    notes.append(f"{mesh.size} x {device.platform} ({device.device_kind}) devices, mesh {dict(mesh.shape)}, "
                 f"{cfg.param_dtype} weights, attention {cfg.attention_impl}, "
                 f"remat={cfg.remat}, generation: {config.rollout.engine} engine")
    if device.platform == "cpu" and cfg.compute_dtype == "bfloat16":
        notes.append("the CPU compiler computes bf16 in f32 and updates caches out of place: its temporaries "
                     "are an upper bound of a GPU's (run the planner on the GPUs for theirs)")
    baseline, baseline_detail = process_baseline(mesh)
    parts = [("baseline", "process baseline", baseline, baseline_detail)]
    if config.mode == "eval":  # evaluate.run: the parameters, no optimizer
        graphdef, shapes, _ = _abstract_model(cfg)
        params = _abstract(shapes, sharding.state_shardings(shapes, mesh))
        parts.append(("resident", "parameters (sharded)", per_device_bytes(params),
                      f"{_count(params) / 1e6:,.0f}M params"))
    else:
        parts += train_parts(config, cfg, mesh)
    in_use = sum(size for phase, _, size, _ in parts if phase in SHARED)
    sizes: dict[str, int] = {}
    for phase, settings in generation_phases(config, mesh, sampler_mesh).items():
        parts += generation_parts(config, cfg, sampler_mesh, phase, settings, in_use, sizes)
    return Plan(title or "memory plan", notes, parts, device_limit(config, device), sizes)


@dataclasses.dataclass(frozen=True)
class Generation:
    """One generation phase's shapes: rows per call on one process, in groups sharing a prompt."""

    rows: int
    group: int
    max_prompt_tokens: int
    max_new_tokens: int
    detail: str


def generation_phases(config: ml_collections.ConfigDict, mesh, sampler_mesh) -> dict[str, Generation]:
    """The rollout (training) and the evaluation (in training when eval.every > 0, or mode "eval"), each
    as its largest call: a round's prompts on one process, or eval.batch_prompts of the eval's samples."""
    r, e = config.rollout, config.eval
    prompt_tokens = r.max_prompt_tokens or 2048
    phases = {}
    if config.mode != "eval":
        processes = 1 if config.mesh.rollout_devices else max(1, mesh.devices.size // sampler_mesh.devices.size)
        prompts = -(-r.oversample_prompts // processes)
        phases["rollout"] = Generation(prompts * r.samples_per_prompt, r.samples_per_prompt, prompt_tokens,
                                       r.max_response_tokens, f"{prompts} prompts x {r.samples_per_prompt}")
    if config.mode == "eval" or e.every > 0:
        samples = eval_samples(config)
        phases["eval"] = Generation(e.batch_prompts * samples, samples, prompt_tokens,
                                    e.max_response_tokens or r.max_response_tokens,
                                    f"eval.batch_prompts={e.batch_prompts} x {samples} samples")
    return phases


def eval_samples(config: ml_collections.ConfigDict) -> int:
    """Responses per problem of the eval suite (eval.samples, else the suite's: the largest benchmark k)."""
    if config.eval.samples:
        return config.eval.samples
    if config.eval.suite == "heldout":
        return 1
    if config.eval.suite == "code":
        from rlve_jax.evaluation.code_eval import SAMPLES

        return SAMPLES
    from rlve_jax.evaluation.evaluate import BENCHMARKS

    names = [n.strip() for n in config.eval.benchmarks.split(",") if n.strip() in BENCHMARKS]
    return max((BENCHMARKS[n][1] for n in names), default=1)


def generation_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, sampler_mesh, phase: str,
                     gen: Generation, in_use: int, sizes: dict[str, int]) -> list[tuple[str, str, int, str]]:
    """One generation phase: the sampler's parameter copy, then the configured engine's parts."""
    graphdef, shapes, _ = _abstract_model(cfg)
    sampler_params = _abstract(shapes, sharding.state_shardings(shapes, sampler_mesh, fsdp=False))
    copy = per_device_bytes(sampler_params)
    parts = [(phase, "sampler parameters (full copy)", copy, "fsdp gathered, for one collection")]
    if config.rollout.engine == "continuous":
        return parts + engine_parts(config, cfg, graphdef, sampler_params, sampler_mesh, phase, gen,
                                    in_use + copy, sizes)
    return parts + static_parts(config, cfg, graphdef, sampler_params, sampler_mesh, phase, gen, sizes)


@dataclasses.dataclass
class TrainStep:
    """The train step's jitted functions with abstract arguments (for a Mesh or an AbstractMesh)."""

    params: Any
    opt_state: Any
    acc: Any
    micro: SequenceBatch
    staging: SequenceBatch
    accumulate: Callable  # jit (params, acc, micro) -> acc; lower it under mesh_context(mesh)
    apply: Callable  # jit (params, opt_state, acc) -> (params, opt_state, metrics)
    detail: str


def mesh_context(mesh):
    """The context the train step is traced in: jax.set_mesh for devices, use_abstract_mesh for an AbstractMesh."""
    if isinstance(mesh, jax.sharding.AbstractMesh):
        return jax.sharding.use_abstract_mesh(mesh)
    return jax.set_mesh(mesh)


def train_step(config: ml_collections.ConfigDict, cfg: ModelConfig, mesh) -> TrainStep:
    """The trainer's gradient accumulation (largest micro-batch) and update, as train_step builds them."""
    from rlve_jax.rl.train_step import (accumulator_shardings, learning_rate, logits_tokens, make_accumulate,
                                        make_apply, make_micro_loss, make_optimizer, zero_accumulator)

    data_parallel = mesh.shape["data"] * mesh.shape["fsdp"]
    replicated = NamedSharding(mesh, P())
    graphdef, shapes, rest = _abstract_model(cfg, lora_lib.LoraConfig.of(config.model.lora))
    params = _abstract(shapes, lora_lib.state_shardings(shapes, mesh, cfg.scan_layers))
    optimized = trainable.split_trainable(params)[0]  # the optimizer's (the adapters only with LoRA)
    tx = make_optimizer(config.optim)
    opt_shapes = jax.eval_shape(tx.init, optimized)
    opt_state = _abstract(opt_shapes, optax.tree_map_params(tx, lambda _, p: p.sharding, opt_shapes, optimized,
                                                            transform_non_params=lambda _: replicated))
    loss_config = losses.loss_config(config.loss, config.rollout.max_response_tokens)
    micro_loss = make_micro_loss(graphdef, rest, loss_config, config.rollout.temperature,
                                 logits_tokens(config.train, cfg))
    acc_shardings = accumulator_shardings(micro_loss, params, mesh)
    acc = _abstract(jax.eval_shape(lambda: zero_accumulator(micro_loss, params)), acc_shardings)
    rows, length = largest_micro_batch(config, data_parallel)
    batch = NamedSharding(mesh, P(sharding.BATCH))
    staged = -(-(config.rollout.prompts_per_step * config.rollout.samples_per_prompt + 1) // data_parallel)
    mode = (f"token budget {config.train.max_tokens_per_micro_batch}" if config.train.max_tokens_per_micro_batch
            else f"micro_batch_size {config.train.micro_batch_size}")
    return TrainStep(params, opt_state, acc, _batch_struct(rows, length, batch),
                     _batch_struct(staged * data_parallel, length, batch), make_accumulate(micro_loss, acc_shardings),
                     make_apply(tx, params, opt_state, mesh, learning_rate(config.optim)),
                     f"micro-batch {rows} x {length} tokens ({mode})")


def train_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, mesh) -> list[tuple[str, str, int, str]]:
    """Parameters, optimizer state, the gradient accumulation of the largest micro-batch, the update."""
    step = train_step(config, cfg, mesh)
    with mesh_context(mesh):
        accumulate = _compile(step.accumulate.lower(step.params, step.acc, step.micro), "the train step")
    apply = _compile(step.apply.lower(step.params, step.opt_state, step.acc), "the optimizer update")
    adapters, base = trainable.split_trainable(step.params)
    if jax.tree.leaves(base):  # LoRA: frozen base weights, adapters with the optimizer state and gradients
        params = [("resident", "base weights (frozen, sharded)", per_device_bytes(base),
                   f"{_count(base) / 1e6:,.0f}M params, no optimizer state"),
                  ("resident", "LoRA adapters (training, sharded)", per_device_bytes(adapters),
                   f"{_count(adapters) / 1e6:,.2f}M params (model.lora.rank={config.model.lora.rank})")]
    else:
        params = [("resident", "parameters (training, sharded)", per_device_bytes(step.params),
                   f"{_count(step.params) / 1e6:,.0f}M params")]
    return [
        *params,
        ("resident", "optimizer state", per_device_bytes(step.opt_state),
         "AdamW moments" + (" of the adapters" if jax.tree.leaves(base) else "")),
        ("train", "gradients (f32 accumulator)", per_device_bytes(step.acc), ""),
        ("train", "activations + temporaries", max(_temp(accumulate), _temp(apply)), f"compiled; {step.detail}"),
        ("train", "batch (staging + micro-batch)", per_device_bytes(step.staging) + per_device_bytes(step.micro),
         f"{step.staging.tokens.shape[0]} staged rows"),
    ]


def static_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, graphdef, sampler_params, sampler_mesh,
                 phase: str, gen: Generation, sizes: dict[str, int]) -> list[tuple[str, str, int, str]]:
    """The static sampler's largest chunk (sampler.chunk_prompts of the phase's prompts), its own jitted
    function compiled: the KV cache it creates, the rest of its temporaries and its outputs."""
    budget = config.rollout.cache_budget_tokens or None
    lp = sampler.prompt_bucket(gen.max_prompt_tokens)
    prompts = sampler.chunk_prompts(gen.rows // gen.group, gen.group, lp, gen.max_new_tokens, budget)
    rows = prompts * gen.group
    sizes.update({f"{phase} chunk prompts": prompts, f"{phase} chunk rows": rows})
    cache = per_device_bytes(sampler.cache_struct(cfg, rows, lp + gen.max_new_tokens, sampler_mesh))
    fn, args, kwargs = sampler.chunk_call(graphdef, sampler_params, prompts=prompts, prompt_length=lp,
                                          group=gen.group, max_new_tokens=gen.max_new_tokens, mesh=sampler_mesh)
    stats = _compile(fn.lower(*args, **kwargs), f"the static sampler's chunk ({phase})").memory_analysis()
    temp = int(stats.temp_size_in_bytes) if stats is not None else 0
    outputs = int(stats.output_size_in_bytes) if stats is not None else 0
    source = f"rollout.cache_budget_tokens={budget}" if budget else "cache_budget_tokens=0: one chunk of all prompts"
    return [
        (phase, "KV cache", cache, f"{rows * (lp + gen.max_new_tokens):,} tokens x "
         f"{sampler.kv_bytes_per_token(cfg):,} B ({rows} rows x {lp + gen.max_new_tokens}; {source})"),
        (phase, "output tokens + logprobs", outputs, "compiled"),
        (phase, "chunk temporaries", max(0, temp - cache),
         f"compiled; {prompts} prompts x {lp} then {gen.max_new_tokens} steps ({gen.detail}), cache excluded"),
    ]


def engine_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, graphdef, sampler_params, sampler_mesh,
                 phase: str, gen: Generation, in_use: int, sizes: dict[str, int]) -> list[tuple[str, str, int, str]]:
    """The rollout engine sized as it sizes itself: its KV budget (rollout.cache_budget_tokens, or what
    the engine takes from free memory: the device limit less its margin, what is in use and the sampler's
    parameter copy), the slots a call of the phase's rows allocates, its largest prefill batch and its
    decode segment, both its own jitted functions compiled."""
    r, limit = config.rollout, device_limit(config, sampler_mesh.devices.flat[0])
    slot_len = engine.slot_length(gen.max_prompt_tokens, gen.max_new_tokens)
    devices = sampler_mesh.devices.size
    budget, source = r.cache_budget_tokens or None, f"rollout.cache_budget_tokens={r.cache_budget_tokens}"
    if budget is None and limit is not None:
        budget = engine.budget_for_free_bytes(cfg, slot_len, devices * engine.free_bytes(limit, in_use, 0))
        source = "from free memory (cache_budget_tokens=0)"
        if budget < 2 * slot_len:  # no room: plan the smallest engine, which then does not fit
            budget, source = 2 * slot_len, "the smallest engine (free memory holds no slot)"
    elif budget is None:
        source = "the CPU default (no device memory known)"
    eng = engine.Engine(cfg, max_prompt_tokens=gen.max_prompt_tokens, max_new_tokens=gen.max_new_tokens,
                        budget_tokens=budget, segment_steps=r.segment_steps, mesh=sampler_mesh)
    slots = eng.slots_for_rows(gen.rows)
    state = eng.abstract_state(slots)
    fn, args, kwargs = eng.segment_call(graphdef, sampler_params, slots)
    decode = _compile(fn.lower(*args, **kwargs), f"the engine's decode segment ({phase}, {slots} slots)")
    prefixes, length = eng.largest_prefill(gen.rows, gen.group)
    fn, args, kwargs = eng.prefill_call(graphdef, sampler_params, prefixes, length)
    prefill = _compile(fn.lower(*args, **kwargs), f"the engine's prefill ({phase}, {prefixes} x {length})")
    prefill_stats = prefill.memory_analysis()
    sizes.update({f"{phase} slots": slots, f"{phase} slot length": slot_len,
                  f"{phase} cache bytes": eng.cache_bytes_for(slots), f"{phase} budget tokens": eng.budget_tokens})
    outputs = 2 * slots * r.segment_steps * 4 // devices
    decode_temp, decode_detail = _temp(decode), f"compiled; a segment of {r.segment_steps} steps over {slots} slots"
    if sampler_mesh.devices.flat[0].platform == "cpu":  # CPU copies the cache each step: not a GPU's figure
        decode_temp = engine.LOGITS_COPIES * 4 * cfg.vocab_size * -(-slots // devices)
        decode_detail = (f"the engine's estimate ({engine.LOGITS_COPIES} f32 logits per slot; the CPU compiler's "
                         f"{_temp(decode) / GB:.1f} GB copies the cache out of place)")
    return [
        (phase, "KV cache", per_device_bytes(state.cache),
         f"{slots} slots x {slot_len:,} tokens x {engine.kv_bytes_per_token(cfg):,} B; budget "
         f"{eng.budget_tokens:,} tokens {source}; {gen.detail}"),
        (phase, "slot rows + segment outputs", per_device_bytes(state._replace(cache=[])) + outputs,
         f"one segment of {r.segment_steps} steps"),
        (phase, "prefill batch (KV + logits)", int(prefill_stats.output_size_in_bytes) if prefill_stats else 0,
         f"{prefixes} prefixes x {length}, held while inserted"),
        (phase, "prefill temporaries", _temp(prefill), f"compiled; {prefixes} prefixes x {length}"),
        (phase, "decode temporaries", decode_temp, decode_detail),
    ]


def process_baseline(mesh) -> tuple[int, str]:
    """What the process holds per device before the run allocates: a device's bytes in use now (where the
    backend reports memory_stats); on CPU the process's resident memory now, shared by its CPU devices."""
    if mesh.devices.flat[0] not in jax.devices():
        return 0, "compiled for a topology from this host: no process there to measure"
    stats = [d.memory_stats() or {} for d in mesh.devices.flat if d.process_index == jax.process_index()]
    if stats and all("bytes_in_use" in s for s in stats):
        return max(int(s["bytes_in_use"]) for s in stats), "bytes in use on the device now (memory_stats)"
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    local = len(jax.local_devices())
    return rss // local, f"host resident memory now {rss / GB:.2f} GB over {local} CPU devices"


def _abstract_model(cfg: ModelConfig, lora: lora_lib.LoraConfig | None = None):
    """(graphdef, abstract parameters, abstract rest) of the model (with its LoRA adapters), nothing allocated."""
    return nnx.split(nnx.eval_shape(lambda: lora_lib.lora_model(cfg, lora, 0)), nnx.Param, ...)


def _count(tree) -> int:
    return sum(math.prod(x.shape) for x in jax.tree.leaves(tree))


def device_limit(config: ml_collections.ConfigDict, device=None) -> float | None:
    """Bytes one device may use: mesh.device_memory_gb, capped by the allocator's own limit where the
    backend reports it (a GPU's XLA allocator takes 75% of its memory unless XLA_PYTHON_CLIENT_MEM_FRACTION
    says more), or a TPU topology's HBM per chip."""
    device = device or jax.local_devices()[0]
    stats = (device.memory_stats() or {}) if device in jax.devices() else {}
    limits = [config.mesh.device_memory_gb * GB] if config.mesh.device_memory_gb else []
    limits += [float(stats["bytes_limit"])] if "bytes_limit" in stats else []
    limits += [TPU_HBM_BYTES[device.device_kind]] if device.device_kind in TPU_HBM_BYTES else []
    return min(limits, default=None)


TPU_HBM_BYTES = {"TPU v4": 32e9, "TPU v5 lite": 16e9, "TPU v5": 95e9, "TPU v6 lite": 32e9}  # per chip (v5: v5p)


def tpu_topology(name: str) -> list:
    """The devices of a named TPU slice (e.g. "v5e:4x4", "v5p:2x2x2"), compiled for from this host:
    libtpu's compiler, no TPU needed (MaxText's train_compile.py pattern)."""
    from jax.experimental import topologies

    if importlib.util.find_spec("libtpu") is None:
        raise ValueError("--topology needs libtpu (pip install 'rlve_jax[tpu]' or the test extra)")
    return list(topologies.get_topology_desc(topology_name=name, platform="tpu").devices)


def first_host_mesh(mesh, tensor: int):
    """One host's sampler mesh on a topology's devices (process 0's chips), as sharding.sampler_mesh makes
    it on that host."""
    own = [d for d in mesh.devices.flat if d.process_index == mesh.devices.flat[0].process_index]
    if len(own) % tensor:
        raise ValueError(f"mesh.sampler_tensor={tensor} must divide the {len(own)} chips of each host")
    return jax.sharding.Mesh(np.array(own).reshape(1, -1, tensor), sharding.AXES,
                             axis_types=(jax.sharding.AxisType.Auto,) * 3)


def check(config: ml_collections.ConfigDict, model_config: ModelConfig | None = None) -> Plan | None:
    """The start-up check, before any weight is loaded: plan and raise a one-line MemoryError when it does
    not fit. Skipped (None) when no device memory is known (CPU without mesh.device_memory_gb)."""
    if device_limit(config) is None:
        return None
    result = plan(config, model_config, "memory plan at start-up")
    reason = result.over()
    if reason:
        raise MemoryError(f"{reason}; see python -m rlve_jax.plan")
    return result


# ---------------------------------------------------------------------------
# Command line


def _force_cpu_devices(config: ml_collections.ConfigDict) -> None:
    """Before JAX starts: the config's XLA flags, and on a CPU-only host as many CPU devices as the mesh."""
    if config.xla_flags:
        os.environ["XLA_FLAGS"] = f"{config.xla_flags} {os.environ.get('XLA_FLAGS', '')}".strip()
    platforms = os.environ.get("JAX_PLATFORMS", "")
    if platforms != "cpu" and (platforms or distributed.accelerator_present()):
        return
    jax.config.update("jax_platforms", "cpu")  # no probing for absent accelerators
    needed = math.prod(max(1, n) for n in (config.mesh.data, config.mesh.fsdp, config.mesh.tensor))
    needed += config.mesh.rollout_devices
    flag = "--xla_force_host_platform_device_count"
    if needed > 1 and flag not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}={needed}".strip()


def main(argv: list[str]) -> None:
    """Print the plan; exit 1 with the reason when it does not fit, 2 with one line for a config error."""
    from absl import flags

    from rlve_jax.cli import VERBOSE, exit_on_input_error
    from rlve_jax.defaults import validate

    config = flags.FLAGS["config"].value
    if config is None:
        raise SystemExit("pass --config=configs/<name>.py (e.g. --config=configs/mesh/gpu8.py:c256)")
    topology = flags.FLAGS["topology"].value
    if topology:
        os.environ["JAX_PLATFORMS"] = "cpu"  # this host runs nothing: libtpu only compiles for the slice
    _force_cpu_devices(config)
    try:
        validate(config)
        where = f" compiled for TPU slice {topology}" if topology else ""
        result = plan(config, title=f"memory plan per device: {flags.FLAGS['config'].config_filename}, "
                                    f"{config.rollout.max_response_tokens:,} response tokens{where}",
                      devices=tpu_topology(topology) if topology else None)
    except MemoryError as error:  # the compiler ran out of the device's memory (TPU compiles)
        print(f"does not fit: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except Exception as error:  # noqa: BLE001  (input errors become one line, others re-raise)
        exit_on_input_error(error, VERBOSE.value)
        raise
    print(result.table())
    reason = result.over()
    if reason:
        print(f"does not fit: {reason}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    from absl import app

    from absl import flags

    from rlve_jax.cli import parse_flags  # also defines --config (and --workdir, unused here)

    flags.DEFINE_string("topology", None, "compile for a TPU slice from this host (libtpu), e.g. v5e:4x4, v5p:2x2x2")
    app.run(main, flags_parser=parse_flags)
