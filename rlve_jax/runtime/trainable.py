"""Which parameters train: all of them, or only the LoRA adapters when the state has any (models/lora.py).
Pure nnx state functions, shared by the train step, the checkpointer and LoRA."""

from __future__ import annotations

from flax import nnx


def split_trainable(params: nnx.State) -> tuple[nnx.State, nnx.State]:
    """(trainable, frozen): (adapters, base weights) when the state has adapters, else (all, empty)."""
    if has_adapters(params):
        return nnx.split_state(params, nnx.LoRAParam, ...)
    return params, nnx.State({})


def merge_trainable(trainable: nnx.State, frozen: nnx.State) -> nnx.State:
    return nnx.merge_state(trainable, frozen)


def has_adapters(params: nnx.State) -> bool:
    return any(isinstance(v, nnx.LoRAParam) for _, v in nnx.to_flat_state(params))
