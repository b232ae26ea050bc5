"""Orbax checkpoints holding everything an exact resume needs.

A checkpoint is the learner's TrainState (parameters, optimizer state, step) and one JSON record beside it
(scheduler state with its seed counter and RNG, the run's base seed, the config, pool stats, the batch
source's state); numpy arrays anywhere in the record (the batch source's groups: tokens, logprobs) are saved as
orbax arrays beside it, and the record names them.
With LoRA the parameters saved are the adapters only: the frozen base is rebuilt from the config
(model.path, or the preset and seed), and its fingerprint in the record must match on restore.
Saves are atomic (orbax writes to a temporary directory and renames), so a process killed
mid-save leaves the previous checkpoint intact.
"""

from __future__ import annotations

import itertools
import json
import signal
from pathlib import Path
from typing import Any, NamedTuple

import jax
import numpy as np
import orbax.checkpoint as ocp

from rlve_jax.runtime.trainable import merge_trainable, split_trainable
from rlve_jax.runtime.sharding import fingerprint

BASE_FINGERPRINT = "lora_base_fingerprint"  # the record's checksum of a LoRA run's frozen base weights
ARRAY = "__array__"  # the record's stand-in for one of its arrays: {ARRAY: name, "dtype": ..., "shape": ...}


def _abstract(tree: Any) -> Any:
    return jax.tree.map(ocp.utils.to_shape_dtype_struct, tree)


class TrainState(NamedTuple):
    """The learner's state (rl/learner.Learner owns it), saved and restored as one."""

    params: Any  # nnx.State of the nnx.Param leaves (with LoRA: the frozen base and the adapters)
    opt_state: Any  # the optimizer state of the trainable parameters
    step: int  # RL steps done: the policy version (updates applied)


class Checkpointer:
    """Save/restore (TrainState, meta) under workdir/checkpoints/<step>."""

    def __init__(self, workdir: str | Path, keep: int = 3):
        self.manager = ocp.CheckpointManager(
            Path(workdir).absolute() / "checkpoints",
            options=ocp.CheckpointManagerOptions(max_to_keep=keep, create=True,
                                                 enable_async_checkpointing=False))

    def latest_step(self) -> int | None:
        return self.manager.latest_step()

    def save(self, state: TrainState, meta: dict) -> None:
        params, frozen = split_trainable(state.params)
        meta = {"step": state.step, **meta}
        if jax.tree.leaves(frozen):
            meta = {**meta, BASE_FINGERPRINT: int(fingerprint(frozen))}
        arrays: dict[str, np.ndarray] = {}
        items = dict(params=ocp.args.StandardSave(params), opt_state=ocp.args.StandardSave(state.opt_state),
                     meta=ocp.args.JsonSave(_without_arrays(meta, arrays)))
        if arrays:
            items["arrays"] = ocp.args.StandardSave(arrays)
        self.manager.save(state.step, args=ocp.args.Composite(**items), force=True)
        self.manager.wait_until_finished()

    def restore(self, step: int, like: TrainState) -> tuple[TrainState, dict]:
        """Restore onto the shardings and dtypes of `like` (abstract or concrete); with LoRA, like.params' base
        weights (concrete) are kept and the adapters restored."""
        trainable, frozen = split_trainable(like.params)
        _check_base(frozen, self.restore_meta(step), step)
        items = dict(params=ocp.args.StandardRestore(_abstract(trainable)),
                     opt_state=ocp.args.StandardRestore(_abstract(like.opt_state)), meta=ocp.args.JsonRestore())
        if "arrays" in self.manager.item_metadata(step).keys():
            items["arrays"] = ocp.args.StandardRestore()
        restored = self.manager.restore(step, args=ocp.args.Composite(**items))
        meta = _with_arrays(restored["meta"], restored.get("arrays") or {})
        return TrainState(merge_trainable(restored["params"], frozen), restored["opt_state"], meta["step"]), meta

    def restore_params(self, step: int, params_like: Any) -> Any:
        """Only the parameters (e.g. to evaluate a training run); with LoRA as in `restore`."""
        trainable, frozen = split_trainable(params_like)
        _check_base(frozen, self.restore_meta(step), step)
        restored = self.manager.restore(step, args=ocp.args.Composite(
            params=ocp.args.StandardRestore(_abstract(trainable))))
        return merge_trainable(restored["params"], frozen)

    def restore_meta(self, step: int, arrays: bool = False) -> dict:
        """Only the JSON record (step, scheduler state, the run's config, ...), its arrays as their stand-ins unless
        `arrays`."""
        items = {"meta": ocp.args.JsonRestore()}
        if arrays and "arrays" in self.manager.item_metadata(step).keys():
            items["arrays"] = ocp.args.StandardRestore()
        restored = self.manager.restore(step, args=ocp.args.Composite(**items))
        return _with_arrays(restored["meta"], restored.get("arrays") or {}) if arrays else restored["meta"]

    def close(self) -> None:
        self.manager.close()


def _without_arrays(record: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The record with each numpy array replaced by its stand-in, the arrays collected under the names a0, a1, ...
    in the record's order (orbax saves no empty array: those the stand-in alone rebuilds)."""
    names = itertools.count()

    def strip(tree: Any) -> Any:
        if isinstance(tree, dict):
            return {k: strip(v) for k, v in tree.items()}
        if isinstance(tree, (list, tuple)):
            return [strip(v) for v in tree]
        if isinstance(tree, np.ndarray):
            name = f"a{next(names)}"
            if tree.size:
                arrays[name] = tree
            return {ARRAY: name, "dtype": tree.dtype.str, "shape": list(tree.shape)}
        return tree

    return strip(record)


def _with_arrays(tree: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The record with its stand-ins replaced by the arrays they name."""
    if isinstance(tree, dict) and ARRAY in tree:
        return arrays.get(tree[ARRAY], np.zeros(tree["shape"], np.dtype(tree["dtype"])))
    if isinstance(tree, dict):
        return {k: _with_arrays(v, arrays) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_with_arrays(v, arrays) for v in tree]
    return tree


def _check_base(frozen: Any, meta: dict, step: int) -> None:
    """A LoRA checkpoint's adapters belong to the base they trained on: refuse any other, and a LoRA checkpoint
    for a model without adapters (or the other way round)."""
    if not jax.tree.leaves(frozen):
        if BASE_FINGERPRINT in meta:
            raise ValueError(f"checkpoint {step} holds LoRA adapters only: restore it with the run's model.lora")
        return
    if BASE_FINGERPRINT not in meta:
        raise ValueError(f"checkpoint {step} holds every weight, not LoRA adapters: restore it with "
                         "model.lora.rank=0 (the run's setting)")
    if int(fingerprint(frozen)) != meta[BASE_FINGERPRINT]:
        raise ValueError(f"checkpoint {step}'s LoRA adapters were trained on other base weights: use the run's "
                         "model.path, or its model.preset and seed")


def load_on_one_device(workdir: str | Path, step: int) -> tuple[Any, dict]:
    """A checkpoint's parameters (a LoRA run's: its adapters), whatever mesh wrote them, on this process's
    first device, and its JSON record (to inspect or compare runs)."""
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
