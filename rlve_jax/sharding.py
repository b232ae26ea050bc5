"""Device meshes and partition rules, kept apart from the model math.

Three mesh axes: "data" (batch), "fsdp" (batch, and parameters sharded ZeRO-3 style for
training) and "tensor" (attention heads, MLP hidden units, vocabulary). Rules name mesh
axes per parameter dimension; an axis that does not divide a dimension is dropped, so one
rule set serves every model size and mesh shape.
"""

from __future__ import annotations

import math
import re
from typing import Any

import jax
import numpy as np
from flax import nnx
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P

AXES = ("data", "fsdp", "tensor")
BATCH = ("data", "fsdp")  # activations: batch split over both data-parallel axes

# Parameter path (layer index removed) -> mesh axis per dimension, first match wins.
# Stacked (scanned) layers get an extra leading None.
PARAM_RULES: tuple[tuple[str, tuple[str | None, ...]], ...] = (
    (r"^embed$", ("tensor", "fsdp")),  # [V, D]
    (r"^lm_head$", ("fsdp", "tensor")),  # [D, V]
    (r"attn/[qkv]_proj$", ("fsdp", "tensor", None)),  # [D, N, H]
    (r"attn/[qkv]_bias$", ("tensor", None)),  # [N, H]
    (r"attn/o_proj$", ("tensor", None, "fsdp")),  # [N, H, D]
    (r"mlp/(gate|up)_proj$", ("fsdp", "tensor")),  # [D, F]
    (r"mlp/down_proj$", ("tensor", "fsdp")),  # [F, D]
    (r".*", ()),  # norms, output bias: replicated
)


def make_mesh(data: int = 1, fsdp: int = -1, tensor: int = 1, devices=None) -> Mesh:
    """A (data, fsdp, tensor) mesh with Auto axis types; -1 takes the remaining devices."""
    devices = list(jax.devices() if devices is None else devices)
    shape = [data, fsdp, tensor]
    if shape.count(-1) > 1:
        raise ValueError("at most one mesh axis may be -1")
    known = math.prod(s for s in shape if s != -1)
    shape = [len(devices) // known if s == -1 else s for s in shape]
    if math.prod(shape) != len(devices):
        raise ValueError(f"mesh {dict(zip(AXES, shape))} does not use all {len(devices)} devices")
    grid = np.asarray(devices, dtype=object).reshape(shape)
    return Mesh(grid, AXES, axis_types=(AxisType.Auto,) * len(AXES))


def fit_spec(axes: tuple, shape: tuple[int, ...], mesh: Mesh) -> P:
    """PartitionSpec for `shape`, leading dims unsharded, axes that do not divide dropped."""
    axes = (None,) * (len(shape) - len(axes)) + tuple(axes)
    out = []
    for dim, axis in zip(shape, axes):
        names = () if axis is None else (axis,) if isinstance(axis, str) else tuple(axis)
        names = tuple(n for n in names if n in mesh.shape)
        size = math.prod(mesh.shape[n] for n in names)
        out.append(None if not names or dim % size else names[0] if len(names) == 1 else names)
    return P(*out)


def param_spec(path: str, shape: tuple[int, ...], mesh: Mesh, fsdp: bool = True) -> P:
    """The spec of one parameter given its "/"-joined path (layer indices are ignored)."""
    key = re.sub(r"/\d+(?=/)", "", path)
    axes = next(axes for pattern, axes in PARAM_RULES if re.search(pattern, key))
    if not fsdp:
        axes = tuple(None if a == "fsdp" else a for a in axes)
    return fit_spec(axes, shape, mesh)


def path_str(path: tuple) -> str:
    return "/".join(str(p) for p in path)


def state_shardings(state: nnx.State, mesh: Mesh, fsdp: bool = True) -> nnx.State:
    """The state with each parameter value replaced by its NamedSharding (same tree structure)."""
    flat = [(path, v.replace(NamedSharding(mesh, param_spec(path_str(path), tuple(v.shape), mesh, fsdp))))
            for path, v in nnx.to_flat_state(state)]
    return nnx.from_flat_state(flat)


def shard_model(model: nnx.Module, mesh: Mesh, fsdp: bool = True) -> nnx.Module:
    """Place every parameter on its NamedSharding in place; fsdp=False replicates over data axes."""
    state = nnx.state(model)
    shardings = state_shardings(state, mesh, fsdp)
    nnx.update(model, jax.device_put(state, shardings))
    return model


def batch_sharding(mesh: Mesh, shape: tuple[int, ...], batch_axis: int = 0) -> NamedSharding:
    """Split `batch_axis` over the data axes (replicated if it does not divide)."""
    axes = [None] * len(shape)
    axes[batch_axis] = BATCH
    return NamedSharding(mesh, fit_spec(tuple(axes), shape, mesh))


def cache_sharding(mesh: Mesh, shape: tuple[int, ...]) -> NamedSharding:
    """KV cache [..., B, S, K, H]: batch over data axes, KV heads over tensor."""
    return NamedSharding(mesh, fit_spec((BATCH, None, "tensor", None), shape, mesh))


def constrain(tree: Any, mesh: Mesh | None, sharding_fn) -> Any:
    """with_sharding_constraint on every array leaf (no-op without a mesh)."""
    if mesh is None:
        return tree
    return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, sharding_fn(mesh, x.shape)), tree)
