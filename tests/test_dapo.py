"""DAPO loss pieces against hand-computed values."""

import math

import jax.numpy as jnp
import numpy as np
import pytest

from rlve_jax.rl import dapo


def test_group_advantages_by_hand():
    rewards = np.array([1.0, 0.0, 0.0, 1.0, 0.5, 0.5, 0.5, 0.5])
    adv = dapo.group_advantages(rewards, group_size=4)
    std = math.sqrt(((0.5**2) * 4) / 3)  # unbiased std of [1, 0, 0, 1]
    np.testing.assert_allclose(adv[:4], np.array([0.5, -0.5, -0.5, 0.5]) / (std + 1e-6), rtol=1e-6)
    np.testing.assert_allclose(adv[4:], 0.0)  # equal rewards: no signal
    np.testing.assert_allclose(dapo.group_advantages(rewards, 4, normalize_std=False)[:4], [0.5, -0.5, -0.5, 0.5])


def test_overlong_penalty_by_hand():
    np.testing.assert_allclose(dapo.overlong_penalty(np.array([10, 80, 90, 100, 150]), 100, 20),
                               [0.0, 0.0, -0.5, -1.0, -1.0])


def test_clip_higher_and_tis_by_hand():
    config = dapo.LossConfig(clip_low=0.2, clip_high=0.28, tis_clip=2.0)
    old = jnp.zeros((2, 3))
    new = jnp.log(jnp.array([[1.5, 0.5, 1.1], [1.5, 0.5, 1.0]]))  # ratios
    sampler = jnp.log(jnp.array([[1.0, 1.0, 0.25], [1.0, 1.0, 1.0]]))  # TIS weights exp(old - sampler)
    advantages = jnp.array([1.0, -1.0])
    mask = jnp.array([[1, 1, 1], [1, 1, 0]])
    loss_sum, denom, metrics = dapo.policy_loss(new, old, sampler, advantages, mask, config)
    # Row 0 (A=+1): max(-r, -clip(r, 0.8, 1.28)) = [-1.28, -0.5, -1.1]; TIS weights [1, 1, min(4, 2)].
    row0 = np.array([-1.28, -0.5, -1.1 * 2.0])
    # Row 1 (A=-1): max(r, clip(r)) = [1.5, 0.8]; the third token is masked.
    row1 = np.array([1.5, 0.8])
    expected = row0.mean() + row1.mean()
    np.testing.assert_allclose(float(loss_sum), expected, rtol=1e-6)
    assert float(denom) == 2.0
    assert float(metrics["clip_fraction"]) == 2.0  # row0 token0 and row1 token1
    token_sum, token_denom, _ = dapo.policy_loss(new, old, sampler, advantages, mask,
                                                 config._replace(aggregation="token-mean"))
    np.testing.assert_allclose(float(token_sum), row0.sum() + row1.sum(), rtol=1e-6)
    assert float(token_denom) == 5.0


def test_no_tis_and_kl():
    old = jnp.zeros((1, 2))
    new = jnp.log(jnp.array([[2.0, 1.0]]))
    ref = jnp.zeros((1, 2))
    mask = jnp.ones((1, 2))
    config = dapo.LossConfig(tis_clip=0.0, aggregation="token-mean", kl_coef=0.1)
    loss_sum, _, metrics = dapo.policy_loss(new, old, jnp.full((1, 2), -5.0), jnp.array([1.0]), mask, config, ref)
    kl = (math.exp(-math.log(2.0)) + math.log(2.0) - 1.0)  # k3 at token 0; 0 at token 1
    np.testing.assert_allclose(float(loss_sum), -1.28 - 1.0 + 0.1 * kl, rtol=1e-6)
    assert "tis_weight" not in metrics
    with pytest.raises(ValueError):
        dapo.policy_loss(new, old, None, jnp.array([1.0]), mask, config)


def test_accumulated_sums_equal_the_full_batch_mean():
    rng = np.random.default_rng(0)
    logp = jnp.asarray(rng.normal(size=(6, 5)))
    old = jnp.asarray(rng.normal(size=(6, 5)))
    adv = jnp.asarray(rng.normal(size=6))
    mask = jnp.asarray(rng.integers(0, 2, size=(6, 5)))
    for mode in dapo.AGGREGATIONS:
        config = dapo.LossConfig(aggregation=mode)
        full = dapo.policy_loss(logp, old, None, adv, mask, config)
        parts = [dapo.policy_loss(logp[i:i + 2], old[i:i + 2], None, adv[i:i + 2], mask[i:i + 2], config)
                 for i in range(0, 6, 2)]
        total = sum(float(p[0]) for p in parts) / sum(float(p[1]) for p in parts)
        np.testing.assert_allclose(total, float(full[0]) / float(full[1]), rtol=1e-6)
    with pytest.raises(ValueError):
        dapo.aggregate(logp, mask, "sum")
