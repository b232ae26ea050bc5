"""DAPO/GRPO policy loss: group advantages, clip-higher PPO, truncated importance sampling.

Losses are returned as (sum, denominator) pairs so that gradient accumulation over
micro-batches is exact: accumulate the gradients of the sums, divide once by the global
denominator.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

AGGREGATIONS = ("token-mean", "seq-mean-token-mean")


class LossConfig(NamedTuple):
    clip_low: float = 0.2  # epsilon_low of PPO-clip
    clip_high: float = 0.28  # epsilon_high (DAPO clip-higher)
    tis_clip: float = 2.0  # truncated importance sampling cap; 0 disables TIS
    aggregation: str = "seq-mean-token-mean"  # what the original scripts used; "token-mean" is DAPO's
    kl_coef: float = 0.0  # > 0 needs reference logprobs (k3 estimator)


def group_advantages(rewards: np.ndarray, group_size: int, normalize_std: bool = True,
                     eps: float = 1e-6) -> np.ndarray:
    """GRPO advantages: reward minus its group mean, over (group std + eps).

    The std is the unbiased one (Bessel), as torch.std in the original. rewards: [N], N = P * G.
    """
    grouped = np.asarray(rewards, np.float64).reshape(-1, group_size)  # [P, G]
    centered = grouped - grouped.mean(axis=1, keepdims=True)
    if normalize_std:
        std = grouped.std(axis=1, ddof=1, keepdims=True) if group_size > 1 else np.zeros_like(centered)
        centered = centered / (std + eps)
    return centered.reshape(-1).astype(np.float32)


def overlong_penalty(lengths: np.ndarray, max_length: int, buffer: int) -> np.ndarray:
    """DAPO soft overlong punishment, in tokens: 0 up to max-buffer, then linear down to -1."""
    lengths = np.asarray(lengths, np.float64)
    start = max_length - buffer
    penalty = np.where(lengths <= start, 0.0, (start - lengths) / max(buffer, 1))
    return np.maximum(penalty, -1.0).astype(np.float32)


def policy_loss(logprobs: jax.Array, old_logprobs: jax.Array, sampler_logprobs: jax.Array | None,
                advantages: jax.Array, mask: jax.Array, config: LossConfig,
                ref_logprobs: jax.Array | None = None) -> tuple[jax.Array, jax.Array, dict[str, jax.Array]]:
    """Clipped policy-gradient loss over response tokens.

    logprobs, old_logprobs, sampler_logprobs, ref_logprobs, mask: [B, T] (mask: 1 on response tokens);
    advantages: [B]. Returns (loss_sum, denominator, metric sums); the loss is loss_sum / denominator
    with the denominator summed over the whole global batch.
    """
    mask = mask.astype(jnp.float32)
    log_ratio = logprobs - old_logprobs
    ratio = jnp.exp(log_ratio)
    adv = advantages[:, None]  # [B, 1]
    unclipped = -adv * ratio
    clipped = -adv * jnp.clip(ratio, 1.0 - config.clip_low, 1.0 + config.clip_high)
    token_loss = jnp.maximum(unclipped, clipped)  # [B, T]
    metrics = {"clip_fraction": jnp.sum((clipped > unclipped) * mask)}
    if sampler_logprobs is not None and config.tis_clip > 0:
        # Correct the sampler/trainer mismatch: weight exp(old - sampler), truncated at tis_clip.
        weight = jax.lax.stop_gradient(jnp.minimum(jnp.exp(old_logprobs - sampler_logprobs), config.tis_clip))
        token_loss = token_loss * weight
        metrics["tis_weight"] = jnp.sum(weight * mask)
    if config.kl_coef > 0:
        if ref_logprobs is None:
            raise ValueError("kl_coef > 0 needs reference logprobs")
        delta = ref_logprobs - logprobs
        token_loss = token_loss + config.kl_coef * (jnp.exp(delta) - delta - 1.0)  # k3, >= 0
    if sampler_logprobs is not None:
        metrics["sampler_logprob_gap"] = jnp.sum(jnp.abs(old_logprobs - sampler_logprobs) * mask)
    loss_sum, denominator = aggregate(token_loss, mask, config.aggregation)
    return loss_sum, denominator, metrics


def aggregate(token_values: jax.Array, mask: jax.Array, mode: str) -> tuple[jax.Array, jax.Array]:
    """(sum, denominator) of a [B, T] per-token quantity under an aggregation mode.

    token-mean: sum over all tokens / number of tokens in the global batch.
    seq-mean-token-mean: each sequence's token mean, summed / number of sequences in the global batch.
    """
    mask = mask.astype(jnp.float32)
    if mode == "token-mean":
        return jnp.sum(token_values * mask), jnp.sum(mask)
    if mode == "seq-mean-token-mean":
        lengths = jnp.sum(mask, axis=1)
        per_sequence = jnp.sum(token_values * mask, axis=1) / jnp.maximum(lengths, 1.0)
        return jnp.sum(per_sequence), jnp.sum(lengths > 0).astype(jnp.float32)
    raise ValueError(f"unknown loss aggregation {mode!r}; choose one of {AGGREGATIONS}")
