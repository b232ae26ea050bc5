"""The policy loss: a named surrogate (config key loss.name), a train/sampler mismatch correction
(rl/mismatch.py), an entropy control (rl/entropy.py), and an aggregation over tokens (loss.aggregation).

Losses are returned as (sum, denominator) pairs so that gradient accumulation over micro-batches is
exact: accumulate the gradients of the sums, divide once by the global denominator.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from rlve_jax.rl import entropy, mismatch
from rlve_jax.rl.registry import Registry


class LossConfig(NamedTuple):
    """Static settings of the loss (hashable: jit closes over them). docs/algorithms.md gives each key."""

    name: str = "dapo"  # POLICY_LOSSES
    aggregation: str = "seq-mean-token-mean"  # AGGREGATIONS: what the original scripts used
    clip_low: float = 0.2  # epsilon_low of PPO-clip
    clip_high: float = 0.28  # epsilon_high (DAPO clip-higher)
    mismatch: str = "token_tis"  # mismatch.MISMATCH
    tis_clip: float = 2.0  # the TIS cap
    mismatch_low: float = 0.5  # token_mask / seq_mask keep ratios in [low, high]
    mismatch_high: float = 2.0
    entropy_control: str = "none"  # entropy.ENTROPY_CONTROLS
    entropy: entropy.EntropyConfig = entropy.EntropyConfig()
    max_response_tokens: int = 0  # the constant of seq-mean-token-sum-norm


# ---------------------------------------------------------------------------
# Surrogates: (logprobs, old, advantages, mask, config) -> token losses [B, T], tokens clipped [B, T] bool

Surrogate = Callable[[jax.Array, jax.Array, jax.Array, jax.Array, LossConfig], tuple[jax.Array, jax.Array]]
POLICY_LOSSES: Registry[Surrogate] = Registry("loss.name")


def clipped_objective(ratio: jax.Array, advantages: jax.Array, config: LossConfig) -> tuple[jax.Array, jax.Array]:
    """PPO's pessimistic clipped surrogate max(-A r, -A clip(r, 1 - eps_low, 1 + eps_high)), per token."""
    adv = advantages[:, None]  # [B, 1]
    unclipped = -adv * ratio
    clipped = -adv * jnp.clip(ratio, 1.0 - config.clip_low, 1.0 + config.clip_high)
    return jnp.maximum(unclipped, clipped), clipped > unclipped


@POLICY_LOSSES.register("dapo")
def dapo(logprobs: jax.Array, old: jax.Array, advantages: jax.Array, mask: jax.Array, config: LossConfig):
    """DAPO (Yu et al. 2025; the paper's): token-level ratio pi / pi_old, clipped to [1 - eps_low, 1 + eps_high]
    (clip-higher: eps_high > eps_low). With clip_high = clip_low it is PPO/GRPO's clip."""
    return clipped_objective(jnp.exp(logprobs - old), advantages, config)


@POLICY_LOSSES.register("gspo")
def gspo(logprobs: jax.Array, old: jax.Array, advantages: jax.Array, mask: jax.Array, config: LossConfig):
    """GSPO (Zheng et al. 2025, "Group Sequence Policy Optimization"): one ratio per sequence, the geometric
    mean of its token ratios, clipped per sequence (the paper's range: clip_low 3e-4, clip_high 4e-4).

    Written per token as GSPO-token: sg(s_i) pi(y_t) / sg(pi(y_t)) has the value s_i and the gradient
    s_i grad log pi(y_t), so with seq-mean-token-mean each sequence's gradient is GSPO's.
    """
    token_log_ratio = (logprobs - old) * mask  # [B, T]
    sequence = jnp.sum(token_log_ratio, axis=1, keepdims=True) / jnp.maximum(jnp.sum(mask, axis=1, keepdims=True),
                                                                               1.0)  # [B, 1]
    log_ratio = jax.lax.stop_gradient(sequence) + logprobs - jax.lax.stop_gradient(logprobs)  # [B, T]
    return clipped_objective(jnp.exp(log_ratio), advantages, config)


@POLICY_LOSSES.register("cispo")
def cispo(logprobs: jax.Array, old: jax.Array, advantages: jax.Array, mask: jax.Array, config: LossConfig):
    """CISPO (MiniMax-M1, 2025): -sg(clip(r, 1 - eps_low, 1 + eps_high)) A log pi per token: the importance
    weight is clipped instead of the update, so every token keeps a gradient."""
    ratio = jnp.exp(logprobs - old)
    weight = jax.lax.stop_gradient(jnp.clip(ratio, 1.0 - config.clip_low, 1.0 + config.clip_high))
    clipped = (ratio < 1.0 - config.clip_low) | (ratio > 1.0 + config.clip_high)
    return -advantages[:, None] * weight * logprobs, clipped


# ---------------------------------------------------------------------------
# Aggregations: (token values [B, T], mask [B, T], config) -> (sum, denominator)

Aggregation = Callable[[jax.Array, jax.Array, LossConfig], tuple[jax.Array, jax.Array]]
AGGREGATIONS: Registry[Aggregation] = Registry("loss.aggregation")


@AGGREGATIONS.register("seq-mean-token-mean")
def seq_mean_token_mean(token_values: jax.Array, mask: jax.Array, config: LossConfig):
    """Each sequence's token mean, summed / the number of sequences in the global batch (the original's)."""
    lengths = jnp.sum(mask, axis=1)
    per_sequence = jnp.sum(token_values * mask, axis=1) / jnp.maximum(lengths, 1.0)
    return jnp.sum(per_sequence), jnp.sum(lengths > 0).astype(jnp.float32)


@AGGREGATIONS.register("token-mean")
def token_mean(token_values: jax.Array, mask: jax.Array, config: LossConfig):
    """The sum over all tokens / the number of tokens in the global batch (DAPO's)."""
    return jnp.sum(token_values * mask), jnp.sum(mask)


@AGGREGATIONS.register("seq-mean-token-sum-norm")
def seq_mean_token_sum_norm(token_values: jax.Array, mask: jax.Array, config: LossConfig):
    """Each sequence's token sum / max_response_tokens, averaged over sequences (Dr. GRPO: no length bias)."""
    if config.max_response_tokens <= 0:
        raise ValueError("loss.aggregation='seq-mean-token-sum-norm' needs max_response_tokens > 0")
    lengths = jnp.sum(mask, axis=1)
    return (jnp.sum(token_values * mask),
            jnp.sum(lengths > 0).astype(jnp.float32) * float(config.max_response_tokens))


def aggregate(token_values: jax.Array, mask: jax.Array, config: LossConfig) -> tuple[jax.Array, jax.Array]:
    """(sum, denominator) of a [B, T] per-token quantity under config.aggregation."""
    return AGGREGATIONS[config.aggregation](token_values, mask.astype(jnp.float32), config)


# ---------------------------------------------------------------------------
# The loss


def policy_loss(logprobs: jax.Array, old_logprobs: jax.Array, sampler_logprobs: jax.Array | None,
                advantages: jax.Array, mask: jax.Array, config: LossConfig,
                key: jax.Array | None = None) -> tuple[jax.Array, jax.Array, dict[str, jax.Array]]:
    """The configured policy loss over response tokens.

    logprobs (the trainer's, differentiable), old_logprobs (the policy that sampled, as the trainer computes
    them), sampler_logprobs (the sampler's own), mask: [B, T] (mask: 1 on response tokens); advantages: [B];
    key: a PRNG key for entropy controls that pick tokens at random. Returns (loss_sum, denominator, metric
    sums); the loss is loss_sum / denominator with the denominator summed over the whole global batch.
    """
    mask = mask.astype(jnp.float32)
    token_loss, clipped = POLICY_LOSSES[config.name](logprobs, old_logprobs, advantages, mask, config)  # [B, T]
    metrics = {"clip_fraction": jnp.sum(clipped * mask)}
    token_loss, control_metrics = entropy.ENTROPY_CONTROLS[config.entropy_control](
        token_loss, entropy.TokenTerms(logprobs, old_logprobs, advantages, mask, clipped, key), config.entropy)
    metrics.update(control_metrics)
    if sampler_logprobs is not None:
        correction = mismatch.MismatchConfig(config.tis_clip, config.mismatch_low, config.mismatch_high)
        weight, correction_metrics = mismatch.MISMATCH[config.mismatch](old_logprobs, sampler_logprobs, mask,
                                                                         correction)
        if weight is not None:
            token_loss = token_loss * weight
        metrics.update(correction_metrics)
        metrics.update(mismatch.mismatch_metrics(old_logprobs, sampler_logprobs, mask))
    loss_sum, denominator = aggregate(token_loss, mask, config)
    return loss_sum, denominator, metrics
