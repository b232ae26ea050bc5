"""JAX's multi-controller runtime: every host runs the same program on its own devices.

`initialize` runs before anything touches a device (XLA flags and `jax.distributed` are only read
when the backend starts). The helpers below are the few host-side exchanges the trainer needs:
a process's share of a list, exact all-gathers of host arrays and of byte strings, a divergence check.

An exchange is a collective on one device of each process. With split meshes (mesh.rollout_devices > 0) the
rollouts of the next step run in a thread of their own while the learner updates: each thread exchanges on
devices of its own (`exchange_on`: the rollout devices, the training devices), so that a device never holds
one thread's collective behind the other's (two processes enqueueing them in different orders would wait on
each other forever).
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import logging
import os
import threading
from typing import Sequence

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

log = logging.getLogger(__name__)


def accelerator_present() -> bool:
    """Whether this host has a GPU or TPU that JAX would use: the plugin installed AND its devices present
    (libtpu installed only to compile for TPU slices, as the test extra does, is no TPU)."""
    cuda = any(importlib.util.find_spec(name) for name in ("jax_cuda12_plugin", "jax_cuda13_plugin"))
    tpu = importlib.util.find_spec("libtpu") is not None
    tpu_devices = glob.glob("/dev/accel*") + glob.glob("/dev/vfio/[0-9]*")
    return bool((cuda and os.path.exists("/dev/nvidiactl")) or (tpu and tpu_devices))


def use_cpu_without_accelerators() -> None:
    """Before the backend starts: the CPU backend alone where no accelerator is present, so that JAX does not
    probe for absent ones (libtpu's probe prints errors and takes seconds). JAX_PLATFORMS, if set, wins."""
    if not os.environ.get("JAX_PLATFORMS") and not accelerator_present():
        jax.config.update("jax_platforms", "cpu")


def force_cpu_devices(count: int) -> None:
    """Before the backend starts, on a host whose JAX runs on CPU: `count` CPU devices (stand-ins for a planned
    mesh's accelerators), unless XLA_FLAGS already sets a count."""
    platforms = os.environ.get("JAX_PLATFORMS", "")
    if platforms != "cpu" and (platforms or accelerator_present()):
        return
    jax.config.update("jax_platforms", "cpu")  # no probing for absent accelerators
    flag = "--xla_force_host_platform_device_count"
    if count > 1 and flag not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flag}={count}".strip()


def prepend_xla_flags(xla_flags: str) -> None:
    """Before the backend starts: `xla_flags` first in XLA_FLAGS, so that the user's own come after them and win."""
    if xla_flags:
        os.environ["XLA_FLAGS"] = f"{xla_flags} {os.environ.get('XLA_FLAGS', '')}".strip()


def initialize(*, xla_flags: str, compilation_cache_dir: str, num_processes: int, coordinator_address: str,
               process_id: int) -> None:
    """The platform, the compilation cache and XLA flags, then `jax.distributed.initialize` unless the run is
    one process (the distributed section: 0, "" and -1 are detected by JAX on TPU VMs, SLURM and Open MPI)."""
    use_cpu_without_accelerators()
    if compilation_cache_dir:
        jax.config.update("jax_compilation_cache_dir", os.path.expanduser(compilation_cache_dir))
    prepend_xla_flags(xla_flags)
    if num_processes == 1:
        return
    # Cross-process collectives of the CPU backend (JAX's default; set so CPU runs do not depend on it).
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=coordinator_address or None, num_processes=num_processes or None,
                               process_id=None if process_id < 0 else process_id)
    log.info("process %d of %d, %d local devices of %d", jax.process_index(), jax.process_count(),
             jax.local_device_count(), jax.device_count())


def is_primary() -> bool:
    """Process 0 writes what is written once (metrics, plots, the final table)."""
    return jax.process_index() == 0


def process_slice(n: int, process: int | None = None) -> slice:
    """This process's (or `process`'s) contiguous share of n items (in process order; at most ceil(n / P) items)."""
    p, count = jax.process_index() if process is None else process, jax.process_count()
    return slice(p * n // count, (p + 1) * n // count)


def any_process(flag: bool) -> bool:
    """True on every process if it is true on any (e.g. a stop signal that reached one host)."""
    return bool(allgather(np.array(flag)).any())


_exchange = threading.local()  # .devices: the calling thread's exchange devices (unset: every device)


def exchange_on(devices: Sequence[jax.Device] | None) -> None:
    """The devices this thread's exchanges run on (their first of each process); None: every device."""
    _exchange.devices = None if devices is None else list(devices)


def _gather_bytes(raw: np.ndarray) -> np.ndarray:
    """[n] uint8, the same n on every process -> [P, n]: an all-gather on one exchange device per process."""
    first: dict[int, jax.Device] = {}
    for device in getattr(_exchange, "devices", None) or jax.devices():
        first.setdefault(device.process_index, device)
    mesh = Mesh(np.array([first[p] for p in range(jax.process_count())]), ("processes",))
    mine = jax.device_put(raw[None], first[jax.process_index()])
    spread = jax.make_array_from_single_device_arrays((jax.process_count(), raw.size),
                                                      NamedSharding(mesh, P("processes")), [mine])
    return np.asarray(jax.jit(_identity, out_shardings=NamedSharding(mesh, P()))(spread).addressable_data(0))


def _identity(x):
    return x


def allgather(tree):
    """Every process's value of a pytree of numpy arrays (same shapes everywhere), stacked: [P, ...].

    The arrays travel as bytes, so float64 and int64 arrive exactly (JAX narrows them without x64).
    """
    leaves, treedef = jax.tree.flatten(tree)
    leaves = [np.asarray(x) for x in leaves]
    if jax.process_count() == 1:
        return treedef.unflatten([x[None] for x in leaves])
    raw = np.concatenate([np.ascontiguousarray(x).reshape(-1).view(np.uint8) for x in leaves]
                         or [np.zeros(0, np.uint8)])
    gathered = _gather_bytes(raw)  # [P, bytes]
    out, offset = [], 0
    for x in leaves:
        out.append(gathered[:, offset:offset + x.nbytes].copy().view(x.dtype).reshape(-1, *x.shape))
        offset += x.nbytes
    return treedef.unflatten(out)


def allgather_bytes(payload: bytes) -> list[bytes]:
    """Every process's byte string (of any length), in process order."""
    if jax.process_count() == 1:
        return [payload]
    sizes = allgather(np.array(len(payload), np.int64))
    width = 1 << int(max(sizes.max(), 1) - 1).bit_length()  # a power of two: few compiled shapes
    raw = np.zeros(width, np.uint8)
    raw[:len(payload)] = np.frombuffer(payload, np.uint8)
    return [row[:n].tobytes() for row, n in zip(_gather_bytes(raw), sizes)]


def assert_same(text: str, what: str) -> str:
    """Fail if processes disagree on `text` (e.g. a state digest); returns its short hash."""
    digest = hashlib.sha256(text.encode()).digest()
    everyone = allgather(np.frombuffer(digest, np.uint8))
    if (everyone != everyone[0]).any():
        differ = [p for p in range(len(everyone)) if (everyone[p] != everyone[0]).any()]
        raise RuntimeError(f"processes {differ} disagree with process 0 on {what}")
    return digest.hex()[:16]
