"""Training batches: prompt + response token sequences, padded, with loss masks and the sampler's
logprobs; the per-token logprobs a training forward computes on them.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from rlve_jax import model as model_lib


class SequenceBatch(NamedTuple):
    """Prompt + response token sequences, left-aligned and right-padded, for a training forward."""

    tokens: np.ndarray  # [B, T] int32
    positions: np.ndarray  # [B, T] int32
    mask: np.ndarray  # [B, T] bool, valid tokens (a prefix of each row)
    loss_mask: np.ndarray  # [B, T] float32, 1 on the response tokens that count
    sampler_logprobs: np.ndarray  # [B, T] float32, at the response tokens
    advantages: np.ndarray  # [B] float32


def bucket(length: int, minimum: int = 16) -> int:
    """Round a length up to a power of two so shapes (and compilations) stay few."""
    return max(minimum, 1 << max(0, length - 1).bit_length())


def build_sequences(prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]], pad_id: int,
                    sampler_logprobs: Sequence[Sequence[float]] | None = None,
                    advantages: Sequence[float] | None = None, rows: int | None = None,
                    length: int | None = None) -> SequenceBatch:
    """Pack token lists into a SequenceBatch; `rows` pads the batch with empty rows (loss mask 0),
    `length` sets the padded length (default: the bucket of the longest sequence)."""
    rows = rows or len(prompts)
    length = length or bucket(max(len(p) + len(r) for p, r in zip(prompts, responses)))
    tokens = np.full((rows, length), pad_id, np.int32)
    loss_mask = np.zeros((rows, length), np.float32)
    logprobs = np.zeros((rows, length), np.float32)
    lengths = np.zeros(rows, np.int32)
    for i, (prompt, response) in enumerate(zip(prompts, responses)):
        p, r = len(prompt), len(response)
        tokens[i, :p + r] = [*prompt, *response]
        loss_mask[i, p:p + r] = 1.0
        if sampler_logprobs is not None:
            logprobs[i, p:p + r] = sampler_logprobs[i]
        lengths[i] = p + r
    positions = np.broadcast_to(np.arange(length, dtype=np.int32), (rows, length)).copy()
    mask = positions < lengths[:, None]
    adv = np.zeros(rows, np.float32)
    if advantages is not None:
        adv[:len(advantages)] = advantages
    return SequenceBatch(tokens, positions, mask, loss_mask, logprobs, adv)


def sequence_logprobs(model, batch: SequenceBatch, temperature: float) -> jax.Array:
    """log p(token t | tokens before t) under the model, aligned with the tokens: [B, T]."""
    next_logp = model_lib.token_logprobs(model, batch.tokens, batch.positions, batch.mask, temperature)  # [B, T]
    return jnp.pad(next_logp[:, :-1], ((0, 0), (1, 0)))
