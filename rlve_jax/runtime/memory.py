"""Device memory: the bytes one device holds of an abstract tree, what the process holds now, and what a device
may hold (the memory planner's facts, rlve_jax/plan.py)."""

from __future__ import annotations

import importlib.util
import math
import os

import jax
import jax.numpy as jnp

GB = 1e9
TPU_HBM_BYTES = {"TPU v4": 32e9, "TPU v5 lite": 16e9, "TPU v5": 95e9, "TPU v6 lite": 32e9}  # per chip (v5: v5p)


def abstract(tree, shardings):
    """The tree's arrays as ShapeDtypeStructs placed on `shardings` (a tree of the same structure)."""
    return jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), tree, shardings)


def count(tree) -> int:
    """Elements in the tree's arrays (parameters, for a parameter tree)."""
    return sum(math.prod(x.shape) for x in jax.tree.leaves(tree))


def per_device_bytes(tree) -> int:
    """Bytes of one device's shards of an abstract tree (the largest device's, with uneven shardings)."""
    totals: dict = {}
    for x in jax.tree.leaves(tree):
        for device, index in x.sharding.devices_indices_map(x.shape).items():
            n = math.prod(len(range(*s.indices(d))) for s, d in zip(index, x.shape))
            totals[device] = totals.get(device, 0) + n * jnp.dtype(x.dtype).itemsize
    return max(totals.values(), default=0)


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


def device_limit(device_memory_gb: float, device=None) -> float | None:
    """Bytes one device may use: device_memory_gb (mesh.device_memory_gb; 0: none given), capped by the allocator's
    own limit where the backend reports it (a GPU's XLA allocator takes 75% of its memory unless
    XLA_PYTHON_CLIENT_MEM_FRACTION says more), or a TPU topology's HBM per chip."""
    device = device or jax.local_devices()[0]
    stats = (device.memory_stats() or {}) if device in jax.devices() else {}
    limits = [device_memory_gb * GB] if device_memory_gb else []
    limits += [float(stats["bytes_limit"])] if "bytes_limit" in stats else []
    limits += [TPU_HBM_BYTES[device.device_kind]] if device.device_kind in TPU_HBM_BYTES else []
    return min(limits, default=None)


def tpu_topology(name: str) -> list:
    """The devices of a named TPU slice (e.g. "v5e:4x4", "v5p:2x2x2"), compiled for from this host:
    libtpu's compiler, no TPU needed (MaxText's train_compile.py pattern)."""
    from jax.experimental import topologies

    if importlib.util.find_spec("libtpu") is None:
        raise ValueError("--topology needs libtpu (pip install 'rlve_jax[tpu]' or the test extra)")
    return list(topologies.get_topology_desc(topology_name=name, platform="tpu").devices)
