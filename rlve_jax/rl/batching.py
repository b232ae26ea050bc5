"""Training batches: prompt + response token sequences, padded, with loss masks and the sampler's
logprobs; their grouping into micro-batches; the per-token logprobs a training forward computes on them.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from rlve_jax.models import model as model_lib
from rlve_jax.runtime.shapes import bucket, pow2_at_least


class SequenceBatch(NamedTuple):
    """Prompt + response token sequences, left-aligned and right-padded, for a training forward."""

    tokens: np.ndarray  # [B, T] int32
    positions: np.ndarray  # [B, T] int32
    mask: np.ndarray  # [B, T] bool, valid tokens (a prefix of each row)
    loss_mask: np.ndarray  # [B, T] float32, 1 on the response tokens that count
    sampler_logprobs: np.ndarray  # [B, T] float32, at the response tokens
    advantages: np.ndarray  # [B] float32

    @classmethod
    def struct(cls, rows: int, length: int, sharding=None) -> "SequenceBatch":
        """The abstract batch of `rows` sequences of `length` tokens (what the train step compiles for)."""
        return cls(*(jax.ShapeDtypeStruct((rows,) if per_row else (rows, length), dtype, sharding=sharding)
                     for dtype, per_row in BATCH_SCHEMA))


# Each field's (dtype, one value per row rather than per token), in SequenceBatch's order: the batch's one schema.
BATCH_SCHEMA = SequenceBatch((np.int32, False), (np.int32, False), (np.bool_, False), (np.float32, False),
                             (np.float32, False), (np.float32, True))


def largest_micro_batch(longest: int, micro_batch_size: int, max_tokens_per_micro_batch: int,
                        data_parallel: int) -> tuple[int, int]:
    """(rows, padded length) of the largest micro-batch a step of sequences up to `longest` tokens can form: the
    fixed layout's micro_batch_size rows at the bucket of `longest`, or a token budget's rows of it, a multiple of
    the data-parallel devices."""
    if not max_tokens_per_micro_batch:
        return micro_batch_size, bucket(longest)
    length = fine_bucket(longest)
    rows = max_tokens_per_micro_batch // length // data_parallel * data_parallel
    if not rows:
        raise ValueError(f"train.max_tokens_per_micro_batch={max_tokens_per_micro_batch} must hold one "
                         f"sequence of up to {length} tokens per data-parallel device: at least "
                         f"{data_parallel * length}")
    return rows, length


def fine_bucket(length: int, steps_per_octave: int = 8, minimum: int = 16) -> int:
    """Round a length up to a multiple of 2^e / steps_per_octave (2^e: the power of two at or below it), and
    of `minimum`: at most 1 / steps_per_octave of padding per long sequence, steps_per_octave shapes per
    doubling of the length."""
    if length <= minimum:
        return minimum
    step = max(minimum, 1 << max(0, (length - 1).bit_length() - 1 - (steps_per_octave.bit_length() - 1)))
    return -(-length // step) * step


class MicroBatch(NamedTuple):
    """One micro-batch of a step: which sequences fill its rows, and their padded length."""

    rows: np.ndarray  # [b] int64 indices into the step's sequences; -1 = an empty padding row
    length: int  # T, the padded length


def fixed_micro_batches(n: int, rows: int, micro_batch_size: int, length: int) -> list[MicroBatch]:
    """The step's n sequences in order, padded with empty rows to `rows`, in micro-batches of
    micro_batch_size rows, all of one padded length (the train.max_tokens_per_micro_batch = 0 layout)."""
    index = np.full(rows, -1, np.int64)
    index[:n] = np.arange(n)
    return [MicroBatch(chunk, length) for chunk in index.reshape(-1, micro_batch_size)]


def token_budget_micro_batches(lengths: Sequence[int], max_tokens: int, row_multiple: int,
                               steps_per_octave: int = 8) -> list[MicroBatch]:
    """Sequences sorted by length (longest first, ties in order) and grouped so that rows x padded length
    stays within max_tokens. A micro-batch is as long as the fine bucket of its longest sequence and holds
    a multiple of row_multiple rows (the data-parallel devices): as many as the budget allows, except the
    last, which takes the smallest power-of-two multiple that holds what is left (few distinct shapes)."""
    lengths = np.asarray(lengths, np.int64)
    order = np.argsort(-lengths, kind="stable")
    batches, start = [], 0
    while start < len(order):
        length = fine_bucket(int(lengths[order[start]]), steps_per_octave)
        capacity = max_tokens // length // row_multiple * row_multiple
        if capacity == 0:
            raise ValueError(f"train.max_tokens_per_micro_batch={max_tokens} cannot hold {row_multiple} rows "
                             f"(one per data-parallel device) of {length} tokens; raise it to at least "
                             f"{row_multiple * length}")
        take = order[start:start + capacity]
        rows = min(row_multiple * pow2_at_least(-(-len(take) // row_multiple)), capacity)
        batches.append(MicroBatch(np.concatenate([take, np.full(rows - len(take), -1, np.int64)]), length))
        start += len(take)
    return batches


def padding_fraction(lengths: Sequence[int], batches: Sequence[MicroBatch]) -> float:
    """The share of the micro-batches' token slots that hold no sequence token."""
    slots = sum(len(b.rows) * b.length for b in batches)
    return 1.0 - float(np.sum(lengths)) / max(slots, 1)


def build_sequences(prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]], pad_id: int,
                    sampler_logprobs: Sequence[Sequence[float]] | None = None,
                    advantages: Sequence[float] | None = None, rows: int | None = None,
                    length: int | None = None) -> SequenceBatch:
    """Pack token lists into a SequenceBatch; `rows` pads the batch with empty rows (loss mask 0),
    `length` sets the padded length (default: the bucket of the longest sequence)."""
    rows = rows or len(prompts)
    length = length or bucket(max(len(p) + len(r) for p, r in zip(prompts, responses)))
    dtypes = SequenceBatch(*(dtype for dtype, _ in BATCH_SCHEMA))
    tokens = np.full((rows, length), pad_id, dtypes.tokens)
    loss_mask = np.zeros((rows, length), dtypes.loss_mask)
    logprobs = np.zeros((rows, length), dtypes.sampler_logprobs)
    lengths = np.zeros(rows, np.int32)
    for i, (prompt, response) in enumerate(zip(prompts, responses)):
        p, r = len(prompt), len(response)
        tokens[i, :p + r] = [*prompt, *response]
        loss_mask[i, p:p + r] = 1.0
        if sampler_logprobs is not None:
            logprobs[i, p:p + r] = sampler_logprobs[i]
        lengths[i] = p + r
    positions = np.broadcast_to(np.arange(length, dtype=dtypes.positions), (rows, length)).copy()
    mask = positions < lengths[:, None]
    adv = np.zeros(rows, dtypes.advantages)
    if advantages is not None:
        adv[:len(advantages)] = advantages
    return SequenceBatch(tokens, positions, mask, loss_mask, logprobs, adv)


def sequence_logprobs(model, batch: SequenceBatch, temperature: float, logits_tokens: int | None = None) -> jax.Array:
    """log p(token t | tokens before t) under the model, aligned with the tokens: [B, T].

    logits_tokens bounds the f32 [B, C, V] logits chunk to about that many tokens (C = logits_tokens / B),
    so micro-batches of many short rows hold no more logits than few long ones; None: the model's chunk.
    """
    chunk = max(1, logits_tokens // batch.tokens.shape[0]) if logits_tokens else None
    next_logp = model_lib.token_logprobs(model, batch.tokens, batch.positions, batch.mask, temperature,
                                         chunk_size=chunk)  # [B, T]
    return jnp.pad(next_logp[:, :-1], ((0, 0), (1, 0)))
