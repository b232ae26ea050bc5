"""Device meshes and partition rules, kept apart from the model math.

Three mesh axes: "data" (batch), "fsdp" (batch, and parameters sharded ZeRO-3 style for
training) and "tensor" (attention heads, MLP hidden units, vocabulary). Rules name mesh
axes per parameter dimension; an axis that does not divide a dimension is dropped, so one
rule set serves every model size and mesh shape.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import jax
import jax.numpy as jnp
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


def split_devices(devices: list, rollout_devices: int) -> tuple[list, list]:
    """(training devices, rollout devices) of every process: the last `rollout_devices` of each process's devices
    generate, the rest train (each list in the order of `devices`). 0: every device does both (the synchronous
    path: no rollout devices of their own)."""
    local = {}
    for device in devices:
        local.setdefault(device.process_index, []).append(device)
    count = min(map(len, local.values()))
    if rollout_devices >= count:
        raise ValueError(f"mesh.rollout_devices={rollout_devices} leaves no training device: each process has "
                         f"{count} devices (set it below {count})")
    rollout = {d for own in local.values() for d in own[len(own) - rollout_devices:]} if rollout_devices else set()
    return [d for d in devices if d not in rollout], [d for d in devices if d in rollout]


@dataclasses.dataclass(frozen=True)
class MeshSettings:
    """The mesh section: the training mesh's axes over every process's devices, each process's sampler."""

    data: int
    fsdp: int  # -1: the remaining devices
    tensor: int
    sampler_tensor: int  # each process's sampler mesh's tensor axis; 0: `tensor`
    rollout_devices: int  # > 0: each process's last N devices sample on a mesh of their own, the others train


def meshes(settings: MeshSettings, devices=None) -> tuple[Mesh, Mesh]:
    """(training mesh, sampler mesh) of the mesh section: the one place they are built. rollout_devices = 0: the
    training mesh spans every device (`devices`: a TPU slice's, compiled for from this host) and each process
    samples on its own share of it (`sampler_mesh`); > 0: two disjoint sub-meshes, training on every process's
    first devices, sampling on a (1, rollout_devices / tensor, tensor) mesh of this process's last ones
    (one-step-off-policy training, rlve_jax/rl/async_collector.py)."""
    process = jax.process_index() if devices is None else devices[0].process_index  # this one, or a slice's first
    devices = list(jax.devices() if devices is None else devices)
    tensor = settings.sampler_tensor or settings.tensor
    rollout_devices = settings.rollout_devices
    train, rollout = split_devices(devices, rollout_devices)
    try:
        mesh = make_mesh(settings.data, settings.fsdp, settings.tensor, devices=train)
    except ValueError as error:
        raise ValueError(f"{error}{' left for training by mesh.rollout_devices' if rollout_devices else ''}") \
            from None
    if not rollout_devices:
        return mesh, sampler_mesh(mesh, tensor, process)
    if rollout_devices % tensor:
        raise ValueError(f"mesh.sampler_tensor={tensor} (0: mesh.tensor) must divide "
                         f"mesh.rollout_devices={rollout_devices}")
    grid = np.asarray([d for d in rollout if d.process_index == process], dtype=object).reshape(1, -1, tensor)
    return mesh, Mesh(grid, AXES, axis_types=(AxisType.Auto,) * len(AXES))


def sampler_mesh(mesh: Mesh, tensor: int, process: int | None = None) -> Mesh:
    """One process's devices of the training mesh as its sampler's (1, n / tensor, tensor) mesh (`process`: this
    one; a TPU slice compiled for from this host: its first).

    Each process's devices must be one contiguous block of the training mesh (as in jax.devices(),
    which lists them process by process), with the training mesh's tensor groups inside the blocks.
    """
    process = jax.process_index() if process is None else process
    blocks = mesh.devices.reshape(len({d.process_index for d in mesh.devices.flat}), -1)  # [P, devices per process]
    if any(len({d.process_index for d in block}) > 1 for block in blocks):
        raise ValueError("each process's devices must be one contiguous block of the mesh")
    for name, size in (("mesh.tensor", mesh.shape["tensor"]), ("mesh.sampler_tensor", tensor)):
        if blocks.shape[1] % size:
            raise ValueError(f"{name}={size} must divide the {blocks.shape[1]} devices of each process")
    own = next(block for block in blocks if block[0].process_index == process)
    return Mesh(own.reshape(1, -1, tensor), AXES, axis_types=(AxisType.Auto,) * len(AXES))


def sampler_state(state: nnx.State, mesh: Mesh, sampler: Mesh) -> nnx.State:
    """Training parameters (fsdp over every process's devices) -> this process's copy on its sampler mesh
    (replicated over its data axes, split over its tensor axis).

    A sampler mesh of the training devices (mesh.rollout_devices = 0) takes the copy where it is (`process_copy`).
    A sampler mesh of its own gets the copy sent to its devices: at once on one process; on several, from this
    process's copy sharded fsdp over its own training devices (a transfer between two processes' devices is not
    one JAX makes).
    """
    if set(sampler.devices.flat).isdisjoint(mesh.devices.flat):
        if jax.process_count() > 1:
            own = [d for d in mesh.devices.flat if d.process_index == jax.process_index()]
            state = process_copy(state, mesh, Mesh(np.asarray(own, dtype=object).reshape(1, -1, 1), AXES,
                                                   axis_types=mesh.axis_types), fsdp=True)
        return jax.device_put(state, state_shardings(state, sampler, fsdp=False))
    return process_copy(state, mesh, sampler, fsdp=False)


def process_copy(state: nnx.State, mesh: Mesh, local: Mesh, fsdp: bool) -> nnx.State:
    """`state` (on `mesh`, over every process's devices) -> this process's copy on `local`, a mesh of its own
    devices of `mesh`, placed as state_shardings(fsdp) places it there.

    One reshard onto every process's devices stacked along "data" (a block per process, shaped as `local`'s
    devices: the copies replicated across processes) hands each device just its own shard; this process's
    arrays are then views of those shards.
    """
    blocks = mesh.devices.reshape(-1, *local.devices.shape[1:])  # [P, ...]: each process's devices, in order
    stacked = Mesh(blocks, AXES, axis_types=local.axis_types)
    gathered = jax.device_put(state, state_shardings(state, stacked, fsdp))

    def local_view(x: jax.Array) -> jax.Array:
        shards = {shard.device: shard.data for shard in x.addressable_shards}
        return jax.make_array_from_single_device_arrays(x.shape, NamedSharding(local, x.sharding.spec),
                                                        [shards[d] for d in local.devices.flat])

    return jax.tree.map(local_view, gathered)


@jax.jit
def fingerprint(tree: Any) -> jax.Array:
    """A uint32 checksum of every bit of every leaf (to compare copies held by different processes)."""
    total = jnp.uint32(0)
    for x in jax.tree.leaves(tree):
        bits = jax.lax.bitcast_convert_type(x.astype(jnp.float32), jnp.uint32).reshape(-1)
        weights = jnp.arange(bits.size, dtype=jnp.uint32) * jnp.uint32(2654435761) + jnp.uint32(1)
        total = total * jnp.uint32(31) + jnp.sum(bits * weights, dtype=jnp.uint32)  # wraps modulo 2**32
    return total


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
    """Place every parameter on its NamedSharding in place; fsdp=False replicates over data axes.

    The values go through host memory: JAX 0.10 builds broken arrays when it places a local device
    array on a sharding that spans several processes (numpy arrays are placed correctly).
    """
    state = nnx.state(model)
    shardings = state_shardings(state, mesh, fsdp)
    nnx.update(model, jax.device_put(jax.device_get(state), shardings))
    return model


def batch_sharding(mesh: Mesh, shape: tuple[int, ...], batch_axis: int = 0) -> NamedSharding:
    """Split `batch_axis` over the data axes (replicated if it does not divide)."""
    axes = [None] * len(shape)
    axes[batch_axis] = BATCH
    return NamedSharding(mesh, fit_spec(tuple(axes), shape, mesh))


def process_rows(sharding: NamedSharding, n: int) -> list[np.ndarray]:
    """For each process, the rows of an [n, ...] array with `sharding` that its local data fills, in the
    order `jax.make_array_from_process_local_data` fills them."""
    spans: list[set] = [set() for _ in range(jax.process_count())]
    for device, index in sharding.devices_indices_map((n,)).items():
        spans[device.process_index].add(index[0].indices(n)[:2])
    return [np.concatenate([np.arange(a, b) for a, b in sorted(s)]) for s in spans]


def cache_sharding(mesh: Mesh, shape: tuple[int, ...]) -> NamedSharding:
    """KV cache [..., B, S, K, H]: batch over data axes, KV heads over tensor."""
    return NamedSharding(mesh, fit_spec((BATCH, None, "tensor", None), shape, mesh))


def constrain(tree: Any, mesh: Mesh | None, sharding_fn) -> Any:
    """with_sharding_constraint on every array leaf (no-op without a mesh)."""
    if mesh is None:
        return tree
    return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, sharding_fn(mesh, x.shape)), tree)
