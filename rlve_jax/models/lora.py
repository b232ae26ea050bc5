"""LoRA adapters on the attention and MLP projections, run by qwix (the library Tunix uses for LoRA).

qwix intercepts `jnp.einsum` inside `Transformer.hidden` and adds (x @ A) @ B * alpha / rank to each targeted
projection. A projection's weight W [in..., out...] (a leading [L] when layers are scanned) gets A [in..., r]
(he-uniform, qwix's default) and B [r, out...] (zeros), stored as `nnx.LoRAParam` next to it under the names qwix looks
for (`q_proj_lora_a`, `q_proj_lora_b`). They are created here rather than by qwix's first traced call, because
the layer loop runs each layer on a module merged from its state (and scans stacked layers): attributes qwix
set on those would be lost. Training differentiates and optimizes the adapters only
(`runtime/trainable.split_trainable`); the sampler and the merged export use W + A @ B * alpha / rank
(`merge_params`); `peft_tensors` names the adapters as PEFT does for Qwen2/Qwen3, so `peft` loads them onto a
transformers model.
"""

from __future__ import annotations

import dataclasses
import functools
import zlib
from typing import Iterator

import jax
import jax.numpy as jnp
import numpy as np
import qwix
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
from qwix._src.utils import flax_util

from rlve_jax.models.model import ModelConfig, Transformer
from rlve_jax.runtime import sharding

# Projection -> (its module here, its module in HF Qwen, input axes of its weight).
PROJECTIONS: dict[str, tuple[str, str, int]] = {
    "q_proj": ("attn", "self_attn", 1),  # [D, N, H]
    "k_proj": ("attn", "self_attn", 1),  # [D, K, H]
    "v_proj": ("attn", "self_attn", 1),  # [D, K, H]
    "o_proj": ("attn", "self_attn", 2),  # [N, H, D]
    "gate_proj": ("mlp", "mlp", 1),  # [D, F]
    "up_proj": ("mlp", "mlp", 1),  # [D, F]
    "down_proj": ("mlp", "mlp", 1),  # [F, D]
}


@dataclasses.dataclass(frozen=True)
class LoraConfig:
    """model.lora: rank r, alpha (the update is scaled by alpha / r) and the targeted projections."""

    rank: int
    alpha: float
    targets: tuple[str, ...]

    @classmethod
    def of(cls, rank: int, alpha: float, targets: str) -> "LoraConfig | None":
        """The model.lora section's LoRA (targets comma-separated), or None when rank is 0 (every weight trains)."""
        if not rank:
            return None
        names = {t.strip() for t in targets.split(",")}
        if not names <= set(PROJECTIONS):
            raise ValueError(f"model.lora.targets={targets!r}: choose from {', '.join(PROJECTIONS)}")
        return cls(int(rank), float(alpha), tuple(p for p in PROJECTIONS if p in names))

    @property
    def scale(self) -> float:
        return self.alpha / self.rank


class ProjectionLora(qwix.LoraProvider):
    """qwix's LoRA on the named projections only (qwix's rules match modules, and q/k/v/o share one): the
    einsum's weight is named by qwix's own lookup (flax_util.find_param, which traces it back to the Param)."""

    def __init__(self, lora: LoraConfig):
        super().__init__(module_path=r"(.*/)?(attn|mlp)", op_names=("einsum",), rank=lora.rank, alpha=lora.alpha)
        self.targets = frozenset(lora.targets)

    def einsum(self, einsum_str: str, *operands: jax.Array, **kwargs) -> jax.Array:
        if len(operands) == 2 and flax_util.find_param(operands[1]) in self.targets:
            return super().einsum(einsum_str, *operands, **kwargs)
        return qwix.PtqProvider.einsum(self, einsum_str, *operands, **kwargs)  # not a target: W alone


def _projections(model: nnx.Module, targets) -> Iterator[tuple[tuple, nnx.Module, str]]:
    """(path of the module, module, projection name) of every targeted projection."""
    for path, module in nnx.iter_modules(model):
        for name in targets:
            if path and path[-1] == PROJECTIONS[name][0] and isinstance(getattr(module, name, None), nnx.Param):
                yield tuple(path), module, name


def adapter_specs(weight_spec: tuple, lead: int, name: str) -> tuple[P, P]:
    """A takes the weight's input axes' sharding, B its output axes' (qwix's rule); the rank axis is whole."""
    n_in = lead + PROJECTIONS[name][2]
    return P(*weight_spec[:n_in], None), P(*weight_spec[:lead], None, *weight_spec[n_in:])


def add_adapters(model: Transformer, lora: LoraConfig, seed: int) -> Transformer:
    """The model with A and B on each targeted projection, in the weight's dtype and placed like it; its
    `hidden` runs through qwix. A is he-uniform (qwix's LoraRule default) drawn on the host from the seed and the
    projection's path (no compile; the same on every process), B zeros."""
    lead = 1 if model.config.scan_layers else 0
    for path, module, name in _projections(model, lora.targets):
        weight = getattr(module, name)
        n_in = lead + PROJECTIONS[name][2]
        fan_in = int(np.prod(weight.shape[lead:n_in]))
        rng = np.random.default_rng([seed, zlib.crc32("/".join(map(str, (*path, name))).encode())])
        limit = np.sqrt(6.0 / fan_in)  # he-uniform: variance 2 / fan_in
        a = rng.uniform(-limit, limit, (*weight.shape[:n_in], lora.rank)).astype(weight.dtype)  # [L?, in..., r]
        b = np.zeros((*weight.shape[:lead], lora.rank, *weight.shape[n_in:]), weight.dtype)  # [L?, r, out...]
        placed = getattr(weight[...], "sharding", None)
        if isinstance(placed, NamedSharding):  # the model is placed: place the adapters like their weight
            spec = tuple(placed.spec) + (None,) * (weight.ndim - len(placed.spec))
            a_spec, b_spec = adapter_specs(spec, lead, name)
            a, b = jax.device_put(a, placed.update(spec=a_spec)), jax.device_put(b, placed.update(spec=b_spec))
        setattr(module, f"{name}_lora_a", nnx.LoRAParam(jnp.asarray(a)))
        setattr(module, f"{name}_lora_b", nnx.LoRAParam(jnp.asarray(b)))
    return qwix.apply_lora_to_model(model, ProjectionLora(lora), methods=("hidden",), skip_nnx_init=True,
                                    rngs=nnx.Rngs(seed))


def state_shardings(state: nnx.State, mesh, scan_layers: bool) -> nnx.State:
    """sharding.state_shardings with each adapter placed as add_adapters places it, from its weight's sharding
    (the planner's abstract model; the partition rules do not name adapters)."""
    shardings = dict(nnx.to_flat_state(sharding.state_shardings(state, mesh)))
    shapes = dict(nnx.to_flat_state(state))
    for path, variable in list(shardings.items()):
        name, _, part = str(path[-1]).rpartition("_lora_")
        if part not in ("a", "b") or name not in PROJECTIONS:
            continue
        weight, ndim = shardings[(*path[:-1], name)].get_value(), len(shapes[(*path[:-1], name)].shape)
        a_spec, b_spec = adapter_specs(tuple(weight.spec) + (None,) * (ndim - len(weight.spec)),
                                       1 if scan_layers else 0, name)
        shardings[path] = variable.replace(weight.update(spec=a_spec if part == "a" else b_spec))
    return nnx.from_flat_state(list(shardings.items()))


# ---------------------------------------------------------------------------
# Trainable / frozen parameters


# ---------------------------------------------------------------------------
# Merged weights (the sampler, the HF export) and PEFT's adapter format


def abstract_model(config: ModelConfig, lora: LoraConfig | None = None):
    """(graphdef, abstract parameters, abstract rest) of the model, with its adapters when lora is given, nothing
    allocated (the memory planner's)."""
    def init() -> Transformer:
        model = Transformer(config, rngs=nnx.Rngs(0))
        return add_adapters(model, lora, 0) if lora else model

    return nnx.split(nnx.eval_shape(init), nnx.Param, ...)


@functools.partial(jax.jit, static_argnames=("scale", "scan_layers"))
def merge_params(params: nnx.State, scale: float, scan_layers: bool) -> nnx.State:
    """The base weights with W + scale * A @ B in each adapted projection (f32 sum, W's dtype), adapters
    dropped: the parameters of the plain model (`plain_graphdef`)."""
    adapters, base = nnx.split_state(params, nnx.LoRAParam, ...)
    flat, pairs = dict(nnx.to_flat_state(base)), dict(nnx.to_flat_state(adapters))
    for path, a in pairs.items():
        name, _, part = str(path[-1]).rpartition("_lora_")
        if part != "a":
            continue
        b = pairs[(*path[:-1], f"{name}_lora_b")][...]
        weight = flat[(*path[:-1], name)]
        product = lambda a, b: jnp.tensordot(a.astype(jnp.float32), b.astype(jnp.float32), axes=1)  # noqa: E731
        delta = jax.vmap(product)(a[...], b) if scan_layers else product(a[...], b)  # [L?, in..., out...]
        flat[(*path[:-1], name)] = weight.replace((weight[...].astype(jnp.float32) + scale * delta)
                                                  .astype(weight.dtype))
    return nnx.from_flat_state(list(flat.items()))


@functools.lru_cache(maxsize=8)
def plain_graphdef(config: ModelConfig):
    """The graph of the model without adapters (the sampler's, the export's)."""
    return nnx.graphdef(nnx.eval_shape(lambda: Transformer(config, rngs=nnx.Rngs(0))))


def merged(model: Transformer, lora: LoraConfig) -> Transformer:
    """A plain Transformer (no adapters, no interception) with the adapters merged into its weights."""
    _, params, rest = nnx.split(model, nnx.Param, ...)
    return nnx.merge(plain_graphdef(model.config), merge_params(params, lora.scale, model.config.scan_layers), rest)


def peft_tensors(model: Transformer) -> dict[str, np.ndarray]:
    """The adapters as PEFT's LoRA state dict for Qwen2/Qwen3 (HF layout: lora_A [r, in], lora_B [out, r]),
    keyed as PeftModel saves them: base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight."""
    out = {}
    lead = 1 if model.config.scan_layers else 0
    for path, module, name in _projections(model, PROJECTIONS):
        if not hasattr(module, f"{name}_lora_a"):
            continue
        a = np.asarray(jax.device_get(getattr(module, f"{name}_lora_a")[...]))  # [L?, in..., r]
        b = np.asarray(jax.device_get(getattr(module, f"{name}_lora_b")[...]))  # [L?, r, out...]
        layers = [(i, a[i], b[i]) for i in range(a.shape[0])] if lead else [(path[1], a, b)]
        for i, a_i, b_i in layers:
            prefix = f"base_model.model.model.layers.{i}.{PROJECTIONS[name][1]}.{name}"
            rank = a_i.shape[-1]
            out[f"{prefix}.lora_A.weight"] = np.ascontiguousarray(a_i.reshape(-1, rank).T)  # [r, in]
            out[f"{prefix}.lora_B.weight"] = np.ascontiguousarray(b_i.reshape(rank, -1).T)  # [out, r]
    return out


def peft_config(lora: LoraConfig, base_model: str | None) -> dict:
    """adapter_config.json for PEFT's LoraConfig (the scale alpha / r, no rsLoRA, no dropout at inference)."""
    return {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": lora.rank, "lora_alpha": lora.alpha,
            "target_modules": list(lora.targets), "lora_dropout": 0.0, "bias": "none", "use_rslora": False,
            "fan_in_fan_out": False, "init_lora_weights": True, "inference_mode": True,
            "base_model_name_or_path": base_model}
