"""Entropy control (config key loss.entropy_control): Clip-Cov and KL-Cov, from Cui et al. 2025, "The Entropy
Mechanism of Reinforcement Learning for Reasoning Language Models" (arXiv 2505.22617).

The paper shows that the policy's entropy falls in step with the covariance between a token's
log-probability and its advantage: confident tokens with positive advantages drive the collapse. Both
methods act on the few tokens with the largest covariance
cov_t = (A_t - mean A) (log pi(y_t) - mean log pi) (means over the micro-batch's response tokens):
- clip_cov: a random loss.clip_cov_fraction of the tokens with cov in (clip_cov_low, clip_cov_high), not
  already clipped by the policy loss, lose their gradient (their token loss is set to 0);
- kl_cov: the top loss.kl_cov_fraction of tokens by cov get loss.kl_cov_coef x |log pi - log pi_old| added.
  That penalty has no gradient where pi = pi_old, so it acts from the second mini-batch of a rollout on
  (train.steps_per_rollout > 1); the paper adds it to an unclipped loss, here to the configured one.
The paper's defaults: Clip-Cov fraction 2e-4 with bounds (1, 5); KL-Cov fraction 2e-3 (7B), coefficient 1.
As in verl, the tokens are picked within each micro-batch.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from rlve_jax.rl.registry import Registry


class EntropyConfig(NamedTuple):
    clip_cov_fraction: float = 2e-4
    clip_cov_low: float = 1.0
    clip_cov_high: float = 5.0
    kl_cov_fraction: float = 2e-3
    kl_cov_coef: float = 1.0


class TokenTerms(NamedTuple):
    """What a control sees of one micro-batch."""

    logprobs: jax.Array  # [B, T] the trainer's, differentiable
    old_logprobs: jax.Array  # [B, T]
    advantages: jax.Array  # [B]
    mask: jax.Array  # [B, T] f32, 1 on response tokens
    clipped: jax.Array  # [B, T] bool, tokens the policy loss clipped
    key: jax.Array | None  # a PRNG key for random picks (one per micro-batch)


Control = Callable[[jax.Array, TokenTerms, EntropyConfig], tuple[jax.Array, dict]]
ENTROPY_CONTROLS: Registry[Control] = Registry("loss.entropy_control")


@ENTROPY_CONTROLS.register("none")
def no_control(token_loss: jax.Array, terms: TokenTerms, config: EntropyConfig):
    """The token losses as they are (the paper's runs)."""
    return token_loss, {}


def covariance(terms: TokenTerms) -> jax.Array:
    """cov_t = (A_t - mean A)(log pi_t - mean log pi) over the micro-batch's response tokens: [B, T]."""
    count = jnp.maximum(jnp.sum(terms.mask), 1.0)
    logp = jax.lax.stop_gradient(terms.logprobs)
    advantages = jnp.broadcast_to(terms.advantages[:, None], logp.shape)  # [B, T]
    mean_advantage = jnp.sum(advantages * terms.mask) / count
    mean_logp = jnp.sum(logp * terms.mask) / count
    return (advantages - mean_advantage) * (logp - mean_logp)


def top_tokens(priority: jax.Array, eligible: jax.Array, count: jax.Array) -> jax.Array:
    """The `count` eligible entries of highest priority (ties at the cut all taken): bool [B, T]."""
    scores = jnp.where(eligible, priority, -jnp.inf)
    cut = jnp.sort(scores.reshape(-1))[::-1][jnp.maximum(count, 1) - 1]
    return eligible & (scores >= cut)


def picked_count(fraction: float, mask: jax.Array) -> jax.Array:
    """max(1, floor(fraction x response tokens)), as int32 []."""
    return jnp.maximum(jnp.floor(fraction * jnp.sum(mask)).astype(jnp.int32), 1)


@ENTROPY_CONTROLS.register("clip_cov")
def clip_cov(token_loss: jax.Array, terms: TokenTerms, config: EntropyConfig):
    """Clip-Cov: a random few tokens with cov in (low, high) lose their gradient."""
    if terms.key is None:
        raise ValueError("loss.entropy_control='clip_cov' needs a PRNG key per micro-batch")
    cov = covariance(terms)
    eligible = (terms.mask > 0) & ~terms.clipped & (cov > config.clip_cov_low) & (cov < config.clip_cov_high)
    picked = top_tokens(jax.random.uniform(terms.key, cov.shape), eligible,
                        picked_count(config.clip_cov_fraction, terms.mask))
    return jnp.where(picked, 0.0, token_loss), {"entropy_control_tokens": jnp.sum(picked.astype(jnp.float32))}


@ENTROPY_CONTROLS.register("kl_cov")
def kl_cov(token_loss: jax.Array, terms: TokenTerms, config: EntropyConfig):
    """KL-Cov: the top tokens by cov get kl_cov_coef x |log pi - log pi_old| added."""
    picked = top_tokens(covariance(terms), terms.mask > 0, picked_count(config.kl_cov_fraction, terms.mask))
    penalty = config.kl_cov_coef * jnp.abs(terms.logprobs - terms.old_logprobs)  # [B, T]
    return (token_loss + jnp.where(picked, penalty, 0.0),
            {"entropy_control_tokens": jnp.sum(picked.astype(jnp.float32))})
