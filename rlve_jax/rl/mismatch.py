"""Train/sampler mismatch corrections (config key loss.mismatch) and their metrics.

The sampler (bf16 decode kernels, a KV cache, partial rollouts carried across policy versions) and the
training forward give the same tokens slightly different probabilities. Each correction turns the
log-ratio log pi_old(y_t) - log pi_sampler(y_t) into a stop-gradient weight per token [B, T] that
multiplies the token losses: truncated importance sampling (TIS, Yao et al. 2025, "Your Efficient RL
Framework Secretly Brings You Off-Policy RL Training"), at the token or sequence level, or masking where the
ratio leaves [loss.mismatch_low, loss.mismatch_high] (token: IcePop, Ling team 2025; sequence: the
geometric-mean rejection of verl's rollout correction). Masked tokens keep their place in the
aggregation's denominator, so masking does not up-weight the rest.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from rlve_jax.rl.registry import Registry


class MismatchConfig(NamedTuple):
    tis_clip: float  # the truncation cap of the TIS weights
    low: float  # masking keeps tokens (sequences) whose ratio is in [low, high]
    high: float


Correction = Callable[[jax.Array, jax.Array, jax.Array, MismatchConfig], tuple[jax.Array | None, dict]]
MISMATCH: Registry[Correction] = Registry("loss.mismatch")


@MISMATCH.register("none")
def uncorrected(old: jax.Array, sampler: jax.Array, mask: jax.Array, config: MismatchConfig):
    """No correction: the sampler's tokens are treated as the trainer's own."""
    return None, {}


@MISMATCH.register("token_tis")
def token_tis(old: jax.Array, sampler: jax.Array, mask: jax.Array, config: MismatchConfig):
    """Each token weighted by min(pi_old / pi_sampler, tis_clip) (the paper's runs: cap 2)."""
    weight = jax.lax.stop_gradient(jnp.minimum(jnp.exp(old - sampler), config.tis_clip))  # [B, T]
    return weight, {"tis_weight": jnp.sum(weight * mask)}


@MISMATCH.register("seq_tis")
def sequence_tis(old: jax.Array, sampler: jax.Array, mask: jax.Array, config: MismatchConfig):
    """Each sequence weighted by min(prod_t pi_old / pi_sampler, tis_clip), on all its tokens."""
    log_weight = jnp.sum((old - sampler) * mask, axis=1, keepdims=True)  # [B, 1]
    weight = jax.lax.stop_gradient(jnp.exp(jnp.minimum(log_weight, jnp.log(config.tis_clip))))
    weight = jnp.broadcast_to(weight, old.shape)  # [B, T]
    return weight, {"tis_weight": jnp.sum(weight * mask)}


@MISMATCH.register("token_mask")
def token_mask(old: jax.Array, sampler: jax.Array, mask: jax.Array, config: MismatchConfig):
    """Tokens whose ratio pi_old / pi_sampler leaves [low, high] are left out of the loss (IcePop)."""
    ratio = jnp.exp(old - sampler)  # [B, T]
    keep = jax.lax.stop_gradient(((ratio >= config.low) & (ratio <= config.high)).astype(jnp.float32))
    return keep, {"mismatch_masked": jnp.sum((1.0 - keep) * mask)}


@MISMATCH.register("seq_mask")
def sequence_mask(old: jax.Array, sampler: jax.Array, mask: jax.Array, config: MismatchConfig):
    """Sequences whose per-token geometric-mean ratio leaves [low, high] are left out of the loss."""
    lengths = jnp.maximum(jnp.sum(mask, axis=1, keepdims=True), 1.0)
    ratio = jnp.exp(jnp.sum((old - sampler) * mask, axis=1, keepdims=True) / lengths)  # [B, 1]
    keep = jax.lax.stop_gradient(((ratio >= config.low) & (ratio <= config.high)).astype(jnp.float32))
    keep = jnp.broadcast_to(keep, old.shape)  # [B, T]
    return keep, {"mismatch_masked": jnp.sum((1.0 - keep) * mask)}


def mismatch_metrics(old: jax.Array, sampler: jax.Array, mask: jax.Array) -> dict[str, jax.Array]:
    """Sums over response tokens (divide by the token count): |log ratio|, and the k3 estimate
    r - 1 - log r (r = pi_old / pi_sampler, >= 0) of KL(pi_sampler || pi_old) per token (its Taylor series
    x^2/2 + x^3/6 where |x = log r| < 1e-3: f32 cancels the difference to 0 there)."""
    x = old - sampler  # [B, T] log r
    k3 = jnp.where(jnp.abs(x) < 1e-3, 0.5 * x * x * (1.0 + x / 3.0), jnp.expm1(x) - x)
    return {"sampler_logprob_gap": jnp.sum(jnp.abs(x) * mask), "mismatch_kl": jnp.sum(k3 * mask)}
