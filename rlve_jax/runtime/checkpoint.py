"""Orbax checkpoints holding everything an exact resume needs.

A checkpoint is the model parameters, the optimizer state and one JSON record (step,
scheduler state with its seed counter and RNG, the run's base seed, the config, pool stats).
Saves are atomic (orbax writes to a temporary directory and renames), so a process killed
mid-save leaves the previous checkpoint intact.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import jax
import orbax.checkpoint as ocp


def _abstract(tree: Any) -> Any:
    return jax.tree.map(ocp.utils.to_shape_dtype_struct, tree)


class Checkpointer:
    """Save/restore (params, opt_state, meta) under workdir/checkpoints/<step>."""

    def __init__(self, workdir: str | Path, every: int = 1, keep: int = 3):
        self.every = max(1, every)
        self.manager = ocp.CheckpointManager(
            Path(workdir).absolute() / "checkpoints",
            options=ocp.CheckpointManagerOptions(max_to_keep=keep, create=True,
                                                 enable_async_checkpointing=False))

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def should_save(self, step: int) -> bool:
        return step % self.every == 0

    def save(self, step: int, params: Any, opt_state: Any, meta: dict) -> None:
        self.manager.save(step, args=ocp.args.Composite(
            params=ocp.args.StandardSave(params),
            opt_state=ocp.args.StandardSave(opt_state),
            meta=ocp.args.JsonSave(meta),
        ), force=True)
        self.manager.wait_until_finished()

    def restore(self, step: int, params_like: Any, opt_state_like: Any) -> tuple[Any, Any, dict]:
        """Restore onto the shardings and dtypes of the given (abstract or concrete) trees."""
        restored = self.manager.restore(step, args=ocp.args.Composite(
            params=ocp.args.StandardRestore(_abstract(params_like)),
            opt_state=ocp.args.StandardRestore(_abstract(opt_state_like)),
            meta=ocp.args.JsonRestore(),
        ))
        return restored["params"], restored["opt_state"], restored["meta"]

    def restore_params(self, step: int, params_like: Any) -> Any:
        """Only the parameters (e.g. to evaluate a training run)."""
        restored = self.manager.restore(step, args=ocp.args.Composite(
            params=ocp.args.StandardRestore(_abstract(params_like))))
        return restored["params"]

    def restore_meta(self, step: int) -> dict:
        """Only the JSON record (step, scheduler state, the run's config, ...)."""
        return self.manager.restore(step, args=ocp.args.Composite(meta=ocp.args.JsonRestore()))["meta"]

    def close(self) -> None:
        self.manager.close()


def load_on_one_device(workdir: str | Path, step: int) -> tuple[Any, dict]:
    """A checkpoint's parameters, whatever mesh wrote them, on this process's first device, and its
    JSON record (to inspect or compare runs)."""
    directory = Path(workdir).absolute() / "checkpoints" / str(step)
    here = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    with ocp.StandardCheckpointer() as checkpointer:
        shapes = checkpointer.metadata(directory / "params").item_metadata
        target = jax.tree.map(lambda m: jax.ShapeDtypeStruct(m.shape, m.dtype, sharding=here), shapes)
        params = checkpointer.restore(directory / "params", target)
    return params, json.loads((directory / "meta" / "metadata").read_text())


class StopRequest:
    """Turns SIGTERM (and SIGINT) into a flag the training loop checks after each step."""

    def __init__(self):
        self.requested = False
        self._previous = {}

    def __enter__(self) -> "StopRequest":
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:  # a second signal stops at once
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
