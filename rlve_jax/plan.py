"""Memory planner: will this config fit its devices? Answered before any weight is loaded.

    python -m rlve_jax.plan --config=configs/mesh/gpu8.py:c256 [--config.model.preset=qwen2.5-1.5b] [...]

Compiles (jax.jit(...).lower(abstract arrays with shardings).compile()) the train step (one micro-batch's
gradient accumulation, for the largest micro-batch the config can form, and the optimiser update), the
sampler's prefill and one decode step at the config's real shapes on the current backend's devices, and
prints per device: parameters, optimizer state, gradients, activations and temporaries
(compiled.memory_analysis()), KV cache and the total. On CPU, a mesh larger than the host's devices gets
forced CPU devices (XLA_FLAGS, set here before JAX starts), so 8 CPU devices stand in for an 8-GPU node.
Exits 1 with a one-line reason when the total exceeds mesh.device_memory_gb (the device's own where known).

The peak is the larger of two phases: the train step (training parameters, optimizer state, gradient
accumulator, the step's batch, the step's temporaries) and the rollout (training parameters and
optimizer state stay resident; the sampler's full parameter copy, the KV cache, the output buffers, and
the larger of prefill's and decode's temporaries).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import sys

import jax
import jax.numpy as jnp
import ml_collections
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.models import attention
from rlve_jax.rl import losses
from rlve_jax.generation import engine
from rlve_jax.runtime import sharding
from rlve_jax.rl.batching import SequenceBatch, bucket, fine_bucket
from rlve_jax.models.model import ModelConfig, SlotCache, Transformer
from rlve_jax.generation.sampler import prompt_bucket

DEFAULT_SHAPE = "r1-distill-qwen-1.5b"  # the paper's model, when the config names none
GB = 1e9


@dataclasses.dataclass
class Plan:
    """Per-device bytes of each part, the two phases' totals and the limit they are held to."""

    title: str
    notes: list[str]
    parts: list[tuple[str, str, int, str]]  # (phase, what, bytes per device, detail)
    train_total: int
    rollout_total: int
    limit: float | None  # bytes; None: unknown (no check)

    @property
    def total(self) -> int:
        return max(self.train_total, self.rollout_total)

    def over(self) -> str | None:
        """The one-line reason the plan does not fit, or None."""
        if self.limit is None or self.total <= self.limit:
            return None
        phase = "train" if self.train_total >= self.rollout_total else "rollout"
        biggest = max((p for p in self.parts if p[0] in (phase, "resident")), key=lambda p: p[2])
        return (f"{self.total / GB:.1f} GB per device ({'train step' if phase == 'train' else phase}) exceeds "
                f"mesh.device_memory_gb="
                f"{self.limit / GB:g}; largest part: {biggest[1]} {biggest[2] / GB:.1f} GB ({biggest[3]})")

    def table(self) -> str:
        lines = [self.title, *[f"  note: {n}" for n in self.notes],
                 f"  {'phase':9s} {'per device':34s} {'GB':>8s}  detail"]
        for phase, what, size, detail in self.parts:
            lines.append(f"  {phase:9s} {what:34s} {size / GB:8.2f}  {detail}")
        limit = "no limit known" if self.limit is None else f"limit {self.limit / GB:g} GB"
        lines.append(f"  {'total':9s} {'train step (resident + train)':34s} {self.train_total / GB:8.2f}")
        lines.append(f"  {'total':9s} {'rollout (resident + rollout)':34s} {self.rollout_total / GB:8.2f}")
        lines.append(f"  {'total':9s} {'peak':34s} {self.total / GB:8.2f}  {limit}: "
                     + ("fits" if self.over() is None else "DOES NOT FIT"))
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# Shapes


def model_config_for(config: ml_collections.ConfigDict) -> tuple[ModelConfig, str]:
    """The model shape (config.model.path's config.json, else config.model.preset, else the default)
    with the config tree's numerics, and where it came from."""
    from rlve_jax.models.policy import model_overrides

    overrides = model_overrides(config.model)
    if config.model.path:
        return ModelConfig.from_hf(config.model.path, **overrides), f"{config.model.path}/config.json"
    if config.model.preset:
        return ModelConfig.preset(config.model.preset, **overrides), f"preset {config.model.preset}"
    return (ModelConfig.preset(DEFAULT_SHAPE, **overrides),
            f"preset {DEFAULT_SHAPE} (the config names no model: pass --config.model.path or --config.model.preset)")


def sampler_chunk(config: ml_collections.ConfigDict, processes: int) -> tuple[int, int, int]:
    """(prompts per chunk, padded prompt length, rows x cached length = cache tokens) of the sampler's
    largest chunk, as sampler.generate forms it from rollout.cache_budget_tokens (0: one chunk of every
    prompt a process draws in a round)."""
    r = config.rollout
    prompts = -(-r.oversample_prompts // processes)
    lp = prompt_bucket(r.max_prompt_tokens or 2048)
    row_tokens = lp + r.max_response_tokens
    limit = (max(1, r.cache_budget_tokens // (r.samples_per_prompt * row_tokens)) if r.cache_budget_tokens
             else prompts)
    per_chunk = 1 << (min(limit, prompts) - 1).bit_length()
    if r.cache_budget_tokens and per_chunk > limit:
        per_chunk >>= 1
    return per_chunk, lp, per_chunk * r.samples_per_prompt * row_tokens


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


def _temp(compiled) -> int:
    stats = compiled.memory_analysis()
    return int(stats.temp_size_in_bytes) if stats is not None else 0


def _batch_struct(rows: int, length: int, batch: NamedSharding) -> SequenceBatch:
    s = lambda shape, dtype: jax.ShapeDtypeStruct(shape, dtype, sharding=batch)  # noqa: E731
    return SequenceBatch(s((rows, length), jnp.int32), s((rows, length), jnp.int32), s((rows, length), jnp.bool_),
                         s((rows, length), jnp.float32), s((rows, length), jnp.float32), s((rows,), jnp.float32))


def plan(config: ml_collections.ConfigDict, model_config: ModelConfig | None = None, title: str = "") -> Plan:
    """Compile the config's train step, prefill and decode abstractly on this backend's devices."""
    notes = []
    if model_config is None:
        model_config, source = model_config_for(config)
        notes.append(f"model shape: {source}")
    cfg = model_config
    mesh = sharding.make_mesh(config.mesh.data, config.mesh.fsdp, config.mesh.tensor)
    sampler_mesh = sharding.sampler_mesh(mesh, config.mesh.sampler_tensor or config.mesh.tensor)
    device = mesh.devices.flat[0]
    notes.append(f"{mesh.size} x {device.platform} ({device.device_kind}) devices, mesh {dict(mesh.shape)}, "
                 f"{cfg.param_dtype} weights, attention {attention.resolve(cfg.attention_impl)}, "
                 f"remat={cfg.remat}")
    if device.platform == "cpu" and cfg.compute_dtype == "bfloat16":
        notes.append("the CPU compiler computes bf16 in f32 and updates caches out of place: its temporaries "
                     "are an upper bound of a GPU's (run the planner on the GPUs for theirs)")
    parts = train_parts(config, cfg, mesh)
    resident = sum(b for phase, _, b, _ in parts if phase == "resident")
    if config.rollout.engine == "continuous":
        parts += engine_parts(config, cfg, sampler_mesh, resident)
    else:
        parts += rollout_parts(config, cfg, mesh, sampler_mesh)
    size = {what: b for _, what, b, _ in parts}
    train_total = resident + sum(b for phase, _, b, _ in parts if phase == "train")
    rollout_total = resident + sum(b for phase, what, b, _ in parts if phase == "rollout"
                                   and what not in ("prefill temporaries", "decode temporaries"))
    rollout_total += max(size["prefill temporaries"], size["decode temporaries"])
    return Plan(title or "memory plan", notes, parts, train_total, rollout_total, device_limit(config))


def train_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, mesh) -> list[tuple[str, str, int, str]]:
    """Parameters, optimizer state, the gradient accumulation of the largest micro-batch, the update."""
    from rlve_jax.rl.train_step import (accumulator_shardings, learning_rate, logits_tokens, make_accumulate,
                                  make_apply, make_micro_loss, make_optimizer, zero_accumulator)

    data_parallel = mesh.shape["data"] * mesh.shape["fsdp"]
    replicated = NamedSharding(mesh, P())
    graphdef, shapes, rest = _abstract_model(cfg)
    params = _abstract(shapes, sharding.state_shardings(shapes, mesh))
    tx = make_optimizer(config.optim)
    opt_shapes = jax.eval_shape(tx.init, params)
    opt_state = _abstract(opt_shapes, optax.tree_map_params(tx, lambda _, p: p.sharding, opt_shapes, params,
                                                            transform_non_params=lambda _: replicated))
    loss_config = losses.loss_config(config.loss, config.rollout.max_response_tokens)
    micro_loss = make_micro_loss(graphdef, rest, loss_config, config.rollout.temperature,
                                 logits_tokens(config.train, cfg))
    acc_shardings = accumulator_shardings(micro_loss, params, mesh)
    acc = _abstract(jax.eval_shape(lambda: zero_accumulator(micro_loss, params)), acc_shardings)
    rows, length = largest_micro_batch(config, data_parallel)
    micro = _batch_struct(rows, length, NamedSharding(mesh, P(sharding.BATCH)))
    with jax.set_mesh(mesh):
        accumulate = make_accumulate(micro_loss, acc_shardings).lower(params, acc, micro).compile()
    apply = make_apply(tx, params, opt_state, mesh, learning_rate(config.optim)).lower(params, opt_state,
                                                                                       acc).compile()
    staged = -(-(config.rollout.prompts_per_step * config.rollout.samples_per_prompt + 1) // data_parallel)
    staging = _batch_struct(staged * data_parallel, length, NamedSharding(mesh, P(sharding.BATCH)))
    mode = (f"token budget {config.train.max_tokens_per_micro_batch}" if config.train.max_tokens_per_micro_batch
            else f"micro_batch_size {config.train.micro_batch_size}")
    return [
        ("resident", "parameters (training, sharded)", per_device_bytes(params),
         f"{_count(params) / 1e6:,.0f}M params"),
        ("resident", "optimizer state", per_device_bytes(opt_state), "AdamW moments"),
        ("train", "gradients (f32 accumulator)", per_device_bytes(acc), ""),
        ("train", "activations + temporaries", max(_temp(accumulate), _temp(apply)),
         f"compiled; micro-batch {rows} x {length} tokens ({mode})"),
        ("train", "batch (staging + micro-batch)", per_device_bytes(staging) + per_device_bytes(micro),
         f"{staged * data_parallel} staged rows"),
    ]


def rollout_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, mesh,
                  sampler_mesh) -> list[tuple[str, str, int, str]]:
    """The sampler's full copy of the parameters, the prefill of a chunk of prompts, one decode step of its
    rows, the KV cache and the output buffers."""
    graphdef, shapes, _ = _abstract_model(cfg)
    g = config.rollout.samples_per_prompt
    sampler_params = _abstract(shapes, sharding.state_shardings(shapes, sampler_mesh, fsdp=False))
    processes = max(1, mesh.devices.size // sampler_mesh.devices.size)
    per_chunk, lp, cache_tokens = sampler_chunk(config, processes)
    rows = per_chunk * g
    cache_len = lp + config.rollout.max_response_tokens
    cache = _abstract_cache(cfg, rows, cache_len, sampler_mesh)
    placed = lambda shape: NamedSharding(sampler_mesh, sharding.fit_spec(  # noqa: E731
        (sharding.BATCH,) + (None,) * (len(shape) - 1), shape, sampler_mesh))
    prompts = jax.ShapeDtypeStruct((per_chunk, lp), jnp.int32, sharding=placed((per_chunk, lp)))
    prefill = jax.jit(_prefill, static_argnums=0).lower(graphdef, sampler_params, prompts).compile()
    token = jax.ShapeDtypeStruct((rows,), jnp.int32, sharding=placed((rows,)))
    decode = jax.jit(_decode, static_argnums=0, donate_argnums=2).lower(graphdef, sampler_params, cache, token,
                                                                        token).compile()
    outputs = jax.ShapeDtypeStruct((rows, config.rollout.max_response_tokens), jnp.float32,
                                   sharding=placed((rows, config.rollout.max_response_tokens)))
    budget = (f"rollout.cache_budget_tokens={config.rollout.cache_budget_tokens}"
              if config.rollout.cache_budget_tokens else "rollout.cache_budget_tokens=0: one chunk of all prompts")
    return [
        ("rollout", "sampler parameters (full copy)", per_device_bytes(sampler_params), "fsdp gathered"),
        ("rollout", "KV cache", per_device_bytes(cache),
         f"{cache_tokens:,} tokens x {engine.kv_bytes_per_token(cfg):,} B ({rows} rows x {cache_len}; {budget})"),
        ("rollout", "output tokens + logprobs", 2 * per_device_bytes(outputs), ""),
        ("rollout", "prefill temporaries", _temp(prefill), f"compiled; {per_chunk} prompts x {lp}"),
        ("rollout", "decode temporaries", _temp(decode), f"compiled; one step of {rows} rows"),
    ]


def engine_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, sampler_mesh,
                 resident: int) -> list[tuple[str, str, int, str]]:
    """The rollout engine's phase: the sampler's parameter copy, the slot cache its KV budget holds
    (rollout.cache_budget_tokens, or what the engine takes from free memory: the device limit less its
    margin, the resident training state and the parameter copy), one prefill batch and one decode step."""
    r = config.rollout
    graphdef, shapes, _ = _abstract_model(cfg)
    sampler_params = _abstract(shapes, sharding.state_shardings(shapes, sampler_mesh, fsdp=False))
    slot_len = engine.slot_length(r.max_prompt_tokens or 2048, r.max_response_tokens)
    per_token = engine.kv_bytes_per_token(cfg)
    devices, limit = sampler_mesh.devices.size, device_limit(config)
    if r.cache_budget_tokens:
        budget, source = r.cache_budget_tokens, f"rollout.cache_budget_tokens={r.cache_budget_tokens}"
    elif limit is not None:
        free = devices * (limit * (1 - engine.MEMORY_MARGIN) - resident - per_device_bytes(sampler_params))
        per_slot = slot_len * per_token + engine.LOGITS_COPIES * 4 * cfg.vocab_size
        budget, source = int(max(0, free) // per_slot) * slot_len, "from free memory (cache_budget_tokens=0)"
        if budget < 2 * slot_len:  # no room: plan the smallest engine, which then does not fit
            budget, source = 2 * slot_len, "the smallest engine (free memory holds no slot)"
    else:
        budget, source = engine.CPU_BUDGET_BYTES // per_token, "the CPU default (no device memory known)"
    slots = engine.slots_for_budget(budget, slot_len)
    processes = max(1, jax.device_count() // devices)
    rows = -(-r.oversample_prompts // processes) * r.samples_per_prompt  # a round's rows on one process
    slots = min(engine.shardable_slots(slots, sampler_mesh), engine._pow2(rows))  # no more slots than rows
    if slots < 1:
        raise ValueError(f"a KV budget of {budget} tokens holds no decode slot of {slot_len} tokens: set "
                         f"rollout.cache_budget_tokens >= {2 * slot_len}")
    shape = (slots, cfg.num_kv_heads, slot_len, cfg.head_dim)
    if cfg.scan_layers:
        shape = (cfg.num_layers, *shape)
    layer = lambda: jax.ShapeDtypeStruct(shape, jnp.dtype(cfg.compute_dtype),  # noqa: E731
                                         sharding=engine.slot_cache_sharding(sampler_mesh, shape))
    cache = (SlotCache(layer(), layer()) if cfg.scan_layers
             else [SlotCache(layer(), layer()) for _ in range(cfg.num_layers)])
    placed = lambda shape, dtype: jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(  # noqa: E731
        sampler_mesh, sharding.fit_spec((sharding.BATCH,) + (None,) * (len(shape) - 1), shape, sampler_mesh)))
    key_width = jax.random.key_data(jax.random.key(0)).shape[-1]
    slot_state = {"cache": cache, "token": placed((slots,), jnp.int32), "step": placed((slots,), jnp.int32),
                  "offset": placed((slots,), jnp.int32), "live": placed((slots,), jnp.bool_),
                  "limit": placed((slots,), jnp.int32), "keys": placed((slots, key_width), jnp.uint32),
                  "temperature": placed((slots,), jnp.float32), "top_p": placed((slots,), jnp.float32),
                  "top_k": placed((slots,), jnp.int32)}
    scalar = jax.ShapeDtypeStruct((), jnp.int32)
    decode = engine._segment.lower(graphdef, sampler_params, slot_state, jax.ShapeDtypeStruct((1,), jnp.int32),
                                   scalar, scalar, steps=r.segment_steps, mesh=sampler_mesh).compile()
    # The prefill batch: the budget's spare tokens (at least one slot's worth) of prompts.
    lp = prompt_bucket(r.max_prompt_tokens or 2048)
    prompts = max(1, min((budget - slots * slot_len) // lp, engine._pow2(-(-slots // r.samples_per_prompt))))
    tokens = placed((prompts, lp), jnp.int32)
    prefill = engine._prefill.lower(graphdef, sampler_params, tokens, placed((prompts,), jnp.int32)).compile()
    outputs = 2 * slots * r.segment_steps * 4 // devices
    decode_temp, decode_detail = _temp(decode), f"compiled; a segment of {r.segment_steps} steps over {slots} slots"
    if sampler_mesh.devices.flat[0].platform == "cpu":  # CPU copies the cache each step: not a GPU's figure
        decode_temp = engine.LOGITS_COPIES * 4 * cfg.vocab_size * -(-slots // devices)
        decode_detail = (f"the engine's estimate ({engine.LOGITS_COPIES} f32 logits per slot; the CPU compiler's "
                         f"{_temp(decode) / GB:.1f} GB copies the cache out of place)")
    return [
        ("rollout", "sampler parameters (full copy)", per_device_bytes(sampler_params), "fsdp gathered"),
        ("rollout", "KV cache", per_device_bytes(cache),
         f"{slots} slots x {slot_len:,} tokens x {per_token:,} B; budget {budget:,} tokens {source}"),
        ("rollout", "output tokens + logprobs", outputs, f"one segment of {r.segment_steps} steps"),
        ("rollout", "prefill temporaries", _temp(prefill), f"compiled; {prompts} prompts x {lp}"),
        ("rollout", "decode temporaries", decode_temp, decode_detail),
    ]


def _abstract_model(cfg: ModelConfig):
    """(graphdef, abstract parameters, abstract rest) of the model, nothing allocated."""
    return nnx.split(nnx.eval_shape(lambda: Transformer(cfg, rngs=nnx.Rngs(0))), nnx.Param, ...)


def _count(tree) -> int:
    return sum(math.prod(x.shape) for x in jax.tree.leaves(tree))


def _abstract_cache(cfg: ModelConfig, rows: int, length: int, mesh) -> list:
    """The KV cache Transformer.init_cache makes, as abstract arrays placed like the sampler's."""
    shape = (rows, length, cfg.num_kv_heads, cfg.head_dim)
    if cfg.scan_layers:
        shape = (cfg.num_layers, *shape)
    layer = lambda: jax.ShapeDtypeStruct(shape, jnp.dtype(cfg.compute_dtype),  # noqa: E731
                                         sharding=sharding.cache_sharding(mesh, shape))
    from rlve_jax.models.model import LayerCache

    return LayerCache(layer(), layer()) if cfg.scan_layers else [LayerCache(layer(), layer())
                                                                  for _ in range(cfg.num_layers)]


def _prefill(graphdef, state, prompts):
    """Prompts [P, Lp] -> last-token logits [P, V] and their cache (as the sampler's prefill)."""
    model = nnx.merge(graphdef, state)
    positions = jnp.broadcast_to(jnp.arange(prompts.shape[1], dtype=jnp.int32), prompts.shape)
    h, cache = model.hidden(prompts, positions, prompts >= 0, model.init_cache(*prompts.shape))
    return model.logits(h[:, -1]), cache


def _decode(graphdef, state, cache, token, position):
    """One decode step of every row: token [R] at position [R] -> logits [R, V] and the updated cache."""
    model = nnx.merge(graphdef, state)
    h, cache = model.hidden(token[:, None], position[:, None], cache=cache, decode=True)
    return model.logits(h[:, 0]), cache


def device_limit(config: ml_collections.ConfigDict) -> float | None:
    """mesh.device_memory_gb in bytes, else the device's own memory where the backend reports it."""
    if config.mesh.device_memory_gb:
        return config.mesh.device_memory_gb * GB
    stats = jax.local_devices()[0].memory_stats() or {}
    return float(stats["bytes_limit"]) if "bytes_limit" in stats else None


def check(config: ml_collections.ConfigDict, model_config: ModelConfig) -> Plan | None:
    """The trainer's start-up check: plan and raise a one-line MemoryError when it does not fit. Skipped
    (None) when no device memory is known (CPU without mesh.device_memory_gb)."""
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
    accelerators = any(importlib.util.find_spec(name) for name in ("jax_cuda12_plugin", "jax_cuda13_plugin", "libtpu"))
    if platforms != "cpu" and (platforms or accelerators):
        return
    os.environ["JAX_PLATFORMS"] = "cpu"  # no probing for absent accelerators
    needed = math.prod(max(1, n) for n in (config.mesh.data, config.mesh.fsdp, config.mesh.tensor))
    flag = "--xla_force_host_platform_device_count"
    if needed > 1 and flag not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}={needed}".strip()


def main(argv: list[str]) -> None:
    from absl import flags

    config = flags.FLAGS["config"].value
    if config is None:
        raise SystemExit("pass --config=configs/<name>.py (e.g. --config=configs/mesh/gpu8.py:c256)")
    _force_cpu_devices(config)
    result = plan(config, title=f"memory plan per device: {flags.FLAGS['config'].config_filename}, "
                                f"{config.rollout.max_response_tokens:,} response tokens")
    print(result.table())
    reason = result.over()
    if reason:
        print(f"does not fit: {reason}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    from absl import app

    from rlve_jax.cli import parse_flags  # also defines --config (and --workdir, unused here)

    app.run(main, flags_parser=parse_flags)
