"""Memory planner: will this config fit its devices? Answered before any weight is loaded.

    python -m rlve_jax.plan --config=configs/mesh/gpu8.py:c256 [--config.model.preset=qwen2.5-1.5b] [...]

The plan IS the code (MaxText's train_compile.py): the model's shape is main's (models/policy.py), the train step
is the Learner's own (rl/train_step.build_update, for the largest micro-batch the config can form) and the
generation parts are the components' own jitted functions (the engine's prefill and decode segment, sized as it
sizes itself, or the static sampler's chunk), compiled on abstract arrays with shardings at the config's shapes
on this backend's devices (on a CPU-only host, forced CPU devices stand in for the mesh's). Prints per device:
the process baseline, parameters, optimizer state, gradients, activations and temporaries
(compiled.memory_analysis()), KV cache and the total; exits 1 with a one-line reason when the total exceeds the
device limit (mesh.device_memory_gb, or the allocator's own), 2 with one line for a config error.

The peak is the largest of the phases, each on top of what stays resident (the process baseline, the training
parameters and optimizer state): the train step (gradient accumulator, the step's batch, the old logprobs of
train.steps_per_rollout > 1, its temporaries), the rollout (the sampler's parameter copy, the KV cache, the
outputs, the larger of prefill's and decode's temporaries) and the evaluation (the same at the eval section's
lengths and batch, its prompts as long as the eval set's longest). The engine frees its slot cache when a
collection ends, the sampler's copy lives for one collection and the train step's buffers for one step: the
phases do not overlap. With split meshes (mesh.rollout_devices > 0) they run on different devices: the train
step on the training devices over their resident state, the rollout and the evaluation on each process's
rollout devices over what stays there (a LoRA run's base weights).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import ml_collections
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.defaults import settings
from rlve_jax.evaluation import evaluate
from rlve_jax.generation import engine, sampler
from rlve_jax.gym import registry
from rlve_jax.gym.prompts import PromptFormat
from rlve_jax.models import attention, decode_attention, lora as lora_lib
from rlve_jax.models.model import ModelConfig
from rlve_jax.models.policy import model_config_of, policy_shape
from rlve_jax.rl.batching import SequenceBatch
from rlve_jax.rl.train_step import build_update
from rlve_jax.runtime import distributed, memory, sharding, trainable
from rlve_jax.runtime.memory import abstract, count, per_device_bytes

log = logging.getLogger(__name__)

DEFAULT_SHAPE = "r1-distill-qwen-1.5b"  # the paper's model, when the config names none
PROMPT_TOKENS = 2048  # the prompt length planned for when rollout.max_prompt_tokens is 0 (no limit)
GB = memory.GB
PHASES = ("train", "rollout", "eval")
SHARED = ("baseline", "resident")  # held through every phase (the training devices' with split meshes)
SPLIT_SHARED = ("baseline", "sampler")  # split meshes: held through the rollout devices' phases
REFUSED = "DOES NOT COMPILE: "  # the detail of a part whose program the compiler refused (out of device memory)


@dataclasses.dataclass
class Plan:
    """Per-device bytes of each part, each phase's total and the limit they are held to."""

    title: str
    notes: list[str]
    parts: list[tuple[str, str, int, str]]  # (phase, what, bytes per device, detail)
    limit: float | None  # bytes; None: unknown (no check)
    sizes: dict[str, int] = dataclasses.field(default_factory=dict)  # e.g. "rollout slots": the engine's
    split: bool = False  # rollouts and evaluation on rollout devices of their own (mesh.rollout_devices > 0)

    def shared(self, phase: str) -> tuple[str, ...]:
        """The parts held on the devices a phase runs on, through it."""
        return SPLIT_SHARED if self.split and phase != "train" else SHARED

    def phase_total(self, phase: str) -> int:
        """Shared parts + the phase's parts, of which the temporaries count as their largest (one program
        runs at a time)."""
        own = [(what, size) for p, what, size, _ in self.parts if p == phase]
        temporaries = [size for what, size in own if what.endswith("temporaries")]
        return (sum(size for p, _, size, _ in self.parts if p in self.shared(phase))
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
        refused = next((detail for *_, detail in self.parts if detail.startswith(REFUSED)), None)
        if refused is not None:
            return refused[len(REFUSED):]
        if self.limit is None or self.total <= self.limit:
            return None
        phase = max(self.totals, key=self.totals.get)
        biggest = max((p for p in self.parts if p[0] in (phase, *self.shared(phase))), key=lambda p: p[2])
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


def model_config_for(config: ml_collections.ConfigDict) -> tuple[ModelConfig, str, PromptFormat | None]:
    """The model shape main would build (models/policy.py's policy_shape: the tokenizer sizes a preset; a tiny
    tokenizer is built in a temporary directory), where it came from, and the prompt format (None without a
    tokenizer). A config that names no tokenizer gets the preset's own vocabulary, one that names no model the
    paper's (DEFAULT_SHAPE)."""
    s = settings(config)
    model = s.model
    if not model.path and not model.preset:
        model = dataclasses.replace(model, preset=DEFAULT_SHAPE)
        source = (f"preset {DEFAULT_SHAPE} (the config names no model: pass --config.model.path or "
                  "--config.model.preset)")
    else:
        source = f"{model.path}/config.json" if model.path else f"preset {model.preset}"
    if not (s.tokenizer.path or model.path):
        return model_config_of(model, None), f"{source}, its own vocabulary (the config names no tokenizer)", None
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer, prompt_format, cfg = policy_shape(model, s.tokenizer, workdir=Path(scratch),
                                                     env_names=registry.resolve(config.env.collection))
    return cfg, f"{source}, the tokenizer's {tokenizer.vocab_size:,} tokens", prompt_format


# ---------------------------------------------------------------------------
# Compiling with abstract arrays


class Refused(NamedTuple):
    """A program the compiler refused for want of device memory (a TPU compile): what it said it needs."""

    temp_bytes: int  # the temporaries it asked for (0 where the message names none)
    reason: str  # one line


def _compile(lowered, what: str):
    """lowered.compile(), or Refused when the compiler runs out of device memory (the plan goes on, and does not
    fit)."""
    try:
        return lowered.compile()
    except jax.errors.JaxRuntimeError as error:
        if "RESOURCE_EXHAUSTED" not in str(error):
            raise
        asked = re.search(r"HLO temporaries \(([\d.]+)G\)", str(error))
        return Refused(int(float(asked.group(1)) * 2**30) if asked else 0,
                       f"{what} does not compile: {' '.join(str(error).split())}")


def _bytes(compiled, kind: str = "temp") -> int:
    """A compiled program's temporaries ("temp") or outputs ("output"), per device (0 where not reported; a
    refused program's temporaries: what it asked for)."""
    if isinstance(compiled, Refused):
        return compiled.temp_bytes if kind == "temp" else 0
    stats = compiled.memory_analysis()
    return int(getattr(stats, f"{kind}_size_in_bytes")) if stats is not None else 0


def _compiled(compiled, detail: str) -> str:
    """A compiled part's detail (a refused program's: the compiler's reason)."""
    return f"{REFUSED}{compiled.reason}" if isinstance(compiled, Refused) else f"compiled; {detail}"


def plan(config: ml_collections.ConfigDict, model_config: ModelConfig | None = None, title: str = "",
         devices: list | None = None, prompt_format: PromptFormat | None = None) -> Plan:
    """Compile the config's train step and generation abstractly on this backend's devices, or on `devices`
    (tpu_topology's: a TPU slice compiled for from this host), with no weights. `prompt_format` encodes the eval
    set's prompts (None with model_config given: none known)."""
    notes = []
    if model_config is None:
        model_config, source, prompt_format = model_config_for(config)
        notes.append(f"model shape: {source}")
    mesh, sampler_mesh = sharding.meshes(settings(config).mesh, devices)
    device = mesh.devices.flat[0]
    # "auto" attention and decode attention: the platform compiled for's (a TPU slice from a CPU host: TPU kernels)
    cfg = dataclasses.replace(model_config, attention_impl=attention.resolve(model_config.attention_impl,
                                                                             device.platform),
                              decode_attention=model_config.decode_attention or decode_attention.default_impl(
                                  model_config.head_dim, device.platform))
    notes.append(f"{mesh.size} x {device.platform} ({device.device_kind}) devices, mesh {dict(mesh.shape)}, "
                 f"{cfg.param_dtype} weights, attention {cfg.attention_impl}, "
                 f"remat={cfg.remat}, generation: {config.rollout.engine} engine")
    if device.platform == "cpu" and cfg.compute_dtype == "bfloat16":
        notes.append("the CPU compiler computes bf16 in f32 and updates caches out of place: its temporaries "
                     "are an upper bound of a GPU's (run the planner on the GPUs for theirs)")
    split = bool(config.mesh.rollout_devices)
    if split:
        notes.append(f"split meshes: the train step on the {mesh.size} training devices, the rollout and the "
                     f"evaluation on each process's {sampler_mesh.size} rollout devices (mesh.rollout_devices)")
    baseline, baseline_detail = memory.process_baseline(mesh)
    parts = [("baseline", "process baseline", baseline, baseline_detail)]
    if config.mode == "eval":  # evaluate.run: the parameters, no optimizer
        graphdef, shapes, _ = lora_lib.abstract_model(cfg)
        params = abstract(shapes, sharding.state_shardings(shapes, mesh))
        parts.append(("resident", "parameters (sharded)", per_device_bytes(params),
                      f"{count(params) / 1e6:,.0f}M params"))
    else:
        parts += train_parts(config, cfg, mesh)
        if split and config.model.lora.rank:  # models/policy.py: the frozen base crosses once and stays
            _, shapes, _ = lora_lib.abstract_model(cfg, settings(config).model.lora)
            base = trainable.split_trainable(shapes)[1]
            parts.append(("sampler", "base weights (frozen, a copy)", per_device_bytes(abstract(
                base, sharding.state_shardings(base, sampler_mesh, fsdp=False))),
                "LoRA: sent once; each step sends the adapters alone"))
    in_use = sum(size for phase, _, size, _ in parts if phase in (SPLIT_SHARED if split else SHARED))
    sizes: dict[str, int] = {}
    processes = len({d.process_index for d in mesh.devices.flat})
    for phase, gen in generation_phases(config, processes, prompt_format, notes).items():
        parts += generation_parts(config, cfg, sampler_mesh, phase, gen, in_use, sizes)
    return Plan(title or "memory plan", notes, parts, memory.device_limit(config.mesh.device_memory_gb, device), sizes,
                split)


@dataclasses.dataclass(frozen=True)
class Generation:
    """One generation phase's shapes: rows per call on one process, in groups sharing a prompt."""

    rows: int
    group: int
    max_prompt_tokens: int
    max_new_tokens: int
    detail: str


def generation_phases(config: ml_collections.ConfigDict, processes: int, prompt_format: PromptFormat | None,
                      notes: list[str]) -> dict[str, Generation]:
    """The rollout (training) and the evaluation (in training when eval.every > 0, or mode "eval"), each
    as its largest call: a round's prompts on one of `processes`, or eval.batch_prompts of the eval's samples, the
    eval's prompts as long as its longest (encoded by prompt_format; without one, rollout.max_prompt_tokens's)."""
    r, e = config.rollout, config.eval
    prompt_tokens = r.max_prompt_tokens or PROMPT_TOKENS
    phases = {}
    if config.mode != "eval":
        prompts = -(-r.oversample_prompts // processes)
        phases["rollout"] = Generation(prompts * r.samples_per_prompt, r.samples_per_prompt, prompt_tokens,
                                       r.max_response_tokens, f"{prompts} prompts x {r.samples_per_prompt}")
    if config.mode == "eval" or e.every > 0:
        samples = evaluate.eval_samples(e.suite, e.samples, e.benchmarks)
        prompts = evaluate.planned_prompts(config)
        if prompt_format is not None and prompts:
            longest = max(len(prompt_format.encode(p)) for p in prompts)  # the eval engine's own sizing
        else:
            longest = prompt_tokens
            notes.append(f"eval prompts planned at {longest} tokens (no tokenizer, or the code suite's own prompts)")
        phases["eval"] = Generation(e.batch_prompts * samples, samples, longest,
                                    e.max_response_tokens or r.max_response_tokens,
                                    f"eval.batch_prompts={e.batch_prompts} x {samples} samples, prompts up to "
                                    f"{longest} tokens")
    return phases


def generation_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, sampler_mesh, phase: str,
                     gen: Generation, in_use: int, sizes: dict[str, int]) -> list[tuple[str, str, int, str]]:
    """One generation phase: the sampler's parameter copy, then the configured engine's parts."""
    graphdef, shapes, _ = lora_lib.abstract_model(cfg)
    sampler_params = abstract(shapes, sharding.state_shardings(shapes, sampler_mesh, fsdp=False))
    copy = per_device_bytes(sampler_params)
    parts = [(phase, "sampler parameters (full copy)", copy, "fsdp gathered, for one collection")]
    if config.rollout.engine == "continuous":
        return parts + engine_parts(config, cfg, graphdef, sampler_params, sampler_mesh, phase, gen,
                                    in_use + copy, sizes)
    return parts + static_parts(config, cfg, graphdef, sampler_params, sampler_mesh, phase, gen, sizes)


@dataclasses.dataclass
class TrainStep:
    """The learner's update parts (rl/train_step.build_update) with abstract arguments (for a Mesh or an
    AbstractMesh)."""

    params: Any
    opt_state: Any
    acc: Any
    micro: SequenceBatch
    staging: SequenceBatch
    accumulate: Callable  # jit (params, acc, micro) -> acc; lower it under mesh_context(mesh)
    apply: Callable  # jit (params, opt_state, acc) -> (params, opt_state, metrics)
    detail: str


def _longest(s) -> int:
    """The longest sequence a step trains on: a prompt (PROMPT_TOKENS with no limit) and a response."""
    sampling = s.collector.sampling
    return (sampling.max_prompt_tokens or PROMPT_TOKENS) + sampling.max_new_tokens


def mesh_context(mesh):
    """The context the train step is traced in: jax.set_mesh for devices, use_abstract_mesh for an AbstractMesh."""
    if isinstance(mesh, jax.sharding.AbstractMesh):
        return jax.sharding.use_abstract_mesh(mesh)
    return jax.set_mesh(mesh)


def train_step(config: ml_collections.ConfigDict, cfg: ModelConfig, mesh) -> TrainStep:
    """The Learner's update, built by the same function (rl/train_step.build_update), for the largest micro-batch
    the config can form."""
    s = settings(config)
    learner = s.learner
    data_parallel = mesh.shape["data"] * mesh.shape["fsdp"]
    graphdef, shapes, rest = lora_lib.abstract_model(cfg, s.model.lora)
    params = abstract(shapes, lora_lib.state_shardings(shapes, mesh, cfg.scan_layers))
    update = build_update(graphdef, rest, params, mesh, optim=learner.optim, loss=learner.loss,
                          temperature=learner.temperature, logits_tokens=learner.logits_tokens(cfg))
    opt_state = abstract(jax.eval_shape(update.tx.init, trainable.split_trainable(params)[0]), update.opt_shardings)
    acc = abstract(jax.eval_shape(update.zero_accumulator), update.acc_shardings)
    rows, length = learner.largest_micro_batch(_longest(s), data_parallel)
    batch = NamedSharding(mesh, P(sharding.BATCH))
    staged = -(-(learner.prompts_per_step * learner.group_size + 1) // data_parallel)
    mode = (f"token budget {learner.max_tokens_per_micro_batch}" if learner.max_tokens_per_micro_batch
            else f"micro_batch_size {learner.micro_batch_size}")
    return TrainStep(params, opt_state, acc, SequenceBatch.struct(rows, length, batch),
                     SequenceBatch.struct(staged * data_parallel, length, batch), update.accumulate, update.apply,
                     f"micro-batch {rows} x {length} tokens ({mode})")


def train_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, mesh) -> list[tuple[str, str, int, str]]:
    """Parameters, optimizer state, the gradient accumulation of the largest micro-batch, the update."""
    step = train_step(config, cfg, mesh)
    with mesh_context(mesh):
        accumulate = _compile(step.accumulate.lower(step.params, step.acc, step.micro), "the train step")
    apply = _compile(step.apply.lower(step.params, step.opt_state, step.acc), "the optimizer update")
    compiled = next((c for c in (accumulate, apply) if isinstance(c, Refused)), accumulate)
    adapters, base = trainable.split_trainable(step.params)
    if jax.tree.leaves(base):  # LoRA: frozen base weights, adapters with the optimizer state and gradients
        params = [("resident", "base weights (frozen, sharded)", per_device_bytes(base),
                   f"{count(base) / 1e6:,.0f}M params, no optimizer state"),
                  ("resident", "LoRA adapters (training, sharded)", per_device_bytes(adapters),
                   f"{count(adapters) / 1e6:,.2f}M params (model.lora.rank={config.model.lora.rank})")]
    else:
        params = [("resident", "parameters (training, sharded)", per_device_bytes(step.params),
                   f"{count(step.params) / 1e6:,.0f}M params")]
    return [
        *params,
        ("resident", "optimizer state", per_device_bytes(step.opt_state),
         "AdamW moments" + (" of the adapters" if jax.tree.leaves(base) else "")),
        ("train", "gradients (f32 accumulator)", per_device_bytes(step.acc), ""),
        ("train", "activations + temporaries", max(_bytes(accumulate), _bytes(apply)),
         _compiled(compiled, step.detail)),
        ("train", "batch (staging + micro-batch)", per_device_bytes(step.staging) + per_device_bytes(step.micro),
         f"{step.staging.tokens.shape[0]} staged rows"),
        *old_logprobs_parts(config, step),
    ]


def old_logprobs_parts(config: ml_collections.ConfigDict, step: TrainStep) -> list[tuple[str, str, int, str]]:
    """train.steps_per_rollout = mu > 1: the Learner computes the old logprobs of the later mini-batches' micro-
    batches before its first optimizer step and holds them through the update: f32 [rows, length] each, split
    over the batch axes, at most the largest micro-batch's length."""
    learner = settings(config).learner
    mu = learner.steps_per_rollout
    if mu == 1:
        return []
    rows, length = step.micro.tokens.shape
    later = (mu - 1) * learner.prompts_per_step * learner.group_size // mu
    micro_batches = -(-later // rows)
    held = micro_batches * per_device_bytes(jax.ShapeDtypeStruct((rows, length), jnp.float32,
                                                                 sharding=step.micro.tokens.sharding))
    return [("train", "old logprobs (steps_per_rollout > 1)", held,
             f"{micro_batches} micro-batches of {rows} x {length} f32 (train.steps_per_rollout={mu})")]


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
    chunk = _compile(fn.lower(*args, **kwargs), f"the static sampler's chunk ({phase})")
    temp, outputs = _bytes(chunk), _bytes(chunk, "output")
    source = f"rollout.cache_budget_tokens={budget}" if budget else "cache_budget_tokens=0: one chunk of all prompts"
    return [
        (phase, "KV cache", cache, f"{rows * (lp + gen.max_new_tokens):,} tokens x "
         f"{sampler.kv_bytes_per_token(cfg):,} B ({rows} rows x {lp + gen.max_new_tokens}; {source})"),
        (phase, "output tokens + logprobs", outputs, _compiled(chunk, "")),
        (phase, "chunk temporaries", max(0, temp - cache), _compiled(
            chunk, f"{prompts} prompts x {lp} then {gen.max_new_tokens} steps ({gen.detail}), cache excluded")),
    ]


def engine_parts(config: ml_collections.ConfigDict, cfg: ModelConfig, graphdef, sampler_params, sampler_mesh,
                 phase: str, gen: Generation, in_use: int, sizes: dict[str, int]) -> list[tuple[str, str, int, str]]:
    """The rollout engine sized as it sizes itself: its KV budget (rollout.cache_budget_tokens, or what
    the engine takes from free memory: the device limit less its margin, what is in use and the sampler's
    parameter copy), the slots a call of the phase's rows allocates, its largest prefill batch and its
    decode segment, both its own jitted functions compiled."""
    r, limit = config.rollout, memory.device_limit(config.mesh.device_memory_gb, sampler_mesh.devices.flat[0])
    slot_len = engine.slot_length(gen.max_prompt_tokens, gen.max_new_tokens)
    devices = sampler_mesh.devices.size
    budget, source = r.cache_budget_tokens or None, f"rollout.cache_budget_tokens={r.cache_budget_tokens}"
    if budget is None:  # the engine's own rule, on the memory this plan leaves free (none known: its CPU default)
        free = None if limit is None else engine.free_bytes(limit, in_use, 0)
        budget = engine.default_budget_tokens(cfg, slot_len, free, sampler_mesh)
        source = ("the CPU default (no device memory known)" if free is None
                  else "from free memory (cache_budget_tokens=0)")
        if free is not None and budget < 2 * slot_len:  # no room: plan the smallest engine, which then does not fit
            budget, source = 2 * slot_len, "the smallest engine (free memory holds no slot)"
    eng = engine.Engine(cfg, max_prompt_tokens=gen.max_prompt_tokens, max_new_tokens=gen.max_new_tokens,
                        budget_tokens=budget, segment_steps=r.segment_steps, mesh=sampler_mesh)
    slots = eng.slots_for_rows(gen.rows)
    state = eng.abstract_state(slots)
    fn, args, kwargs = eng.segment_call(graphdef, sampler_params, slots)
    decode = _compile(fn.lower(*args, **kwargs), f"the engine's decode segment ({phase}, {slots} slots)")
    prefixes, length = eng.largest_prefill(gen.rows, gen.group)
    fn, args, kwargs = eng.prefill_call(graphdef, sampler_params, prefixes, length)
    prefill = _compile(fn.lower(*args, **kwargs), f"the engine's prefill ({phase}, {prefixes} x {length})")
    sizes.update({f"{phase} slots": slots, f"{phase} slot length": slot_len,
                  f"{phase} cache bytes": eng.cache_bytes_for(slots), f"{phase} budget tokens": eng.budget_tokens})
    outputs = 2 * slots * r.segment_steps * 4 // devices
    decode_temp = _bytes(decode)
    decode_detail = _compiled(decode, f"a segment of {r.segment_steps} steps over {slots} slots")
    if sampler_mesh.devices.flat[0].platform == "cpu":  # CPU copies the cache each step: not a GPU's figure
        decode_temp = engine.LOGITS_COPIES * 4 * cfg.vocab_size * -(-slots // devices)
        decode_detail = (f"the engine's estimate ({engine.LOGITS_COPIES} f32 logits per slot; the CPU compiler's "
                         f"{_bytes(decode) / GB:.1f} GB copies the cache out of place)")
    return [
        (phase, "KV cache", per_device_bytes(state.cache),
         f"{slots} slots x {slot_len:,} tokens x {engine.kv_bytes_per_token(cfg):,} B; budget "
         f"{eng.budget_tokens:,} tokens {source}; {gen.detail}"),
        (phase, "slot rows + segment outputs", per_device_bytes(state._replace(cache=[])) + outputs,
         f"one segment of {r.segment_steps} steps"),
        (phase, "prefill batch (KV + logits)", _bytes(prefill, "output"), f"{prefixes} prefixes x {length}, held while "
         "inserted"),
        (phase, "prefill temporaries", _bytes(prefill), _compiled(prefill, f"{prefixes} prefixes x {length}")),
        (phase, "decode temporaries", decode_temp, decode_detail),
    ]


def check(config: ml_collections.ConfigDict, model_config: ModelConfig,
          prompt_format: PromptFormat | None = None) -> Plan | None:
    """The start-up check, before any weight is loaded (the builder's, evaluation's through main): a training
    run's batch layout on the mesh, then the memory plan, raising a one-line MemoryError when it does not fit.
    The plan is skipped (None) when no device memory is known (CPU without mesh.device_memory_gb)."""
    if config.mode == "train":
        s = settings(config)
        mesh, _ = sharding.meshes(s.mesh)
        s.learner.largest_micro_batch(_longest(s), mesh.shape["data"] * mesh.shape["fsdp"])
    if memory.device_limit(config.mesh.device_memory_gb) is None:
        return None
    result = plan(config, model_config, "memory plan at start-up", prompt_format=prompt_format)
    reason = result.over()
    if reason:
        raise MemoryError(f"{reason}; see python -m rlve_jax.plan")
    log.info("%s", result.table())
    return result


# ---------------------------------------------------------------------------
# Command line


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
    distributed.prepend_xla_flags(config.xla_flags)
    axes = [max(1, n) for n in (config.mesh.data, config.mesh.fsdp, config.mesh.tensor)]
    distributed.force_cpu_devices(math.prod(axes) + config.mesh.rollout_devices)  # on a CPU-only host: the mesh's
    try:
        validate(config)
        where = f" compiled for TPU slice {topology}" if topology else ""
        result = plan(config, title=f"memory plan per device: {flags.FLAGS['config'].config_filename}, "
                                    f"{config.rollout.max_response_tokens:,} response tokens{where}",
                      devices=memory.tpu_topology(topology) if topology else None)
    except Exception as error:  # noqa: BLE001  (input errors become one line, others re-raise)
        exit_on_input_error(error, VERBOSE.value)
        raise
    print(result.table())
    reason = result.over()
    if reason:
        print(f"does not fit: {reason}", file=sys.stderr)
        raise SystemExit(1)

if __name__ == "__main__":
    from absl import app, flags

    from rlve_jax.cli import parse_flags  # also defines --config (and --workdir, unused here)

    flags.DEFINE_string("topology", None, "compile for a TPU slice from this host (libtpu), e.g. v5e:4x4, v5p:2x2x2")
    app.run(main, flags_parser=parse_flags)
