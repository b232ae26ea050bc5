"""The RL algorithm's named plug points against hand-computed small batches: advantage estimators, reward
shaping, group filters, policy losses and aggregations, mismatch corrections, entropy controls."""

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from rlve_jax.models.model import PRESETS, Transformer
from rlve_jax.rl import entropy, losses, mismatch, train_step
from rlve_jax.rl.batching import build_sequences
from rlve_jax.runtime import sharding
from rlve_jax.rl.advantages import ADVANTAGES
from rlve_jax.rl.filters import GROUP_FILTERS
from rlve_jax.rl.registry import Registry
from rlve_jax.rl.shaping import SHAPING, ShapingConfig, overlong_penalty


def test_registry_names_its_key_and_choices():
    registry = Registry("loss.thing")
    registry.register("a")(len)
    assert registry["a"] is len and "a" in registry and registry.names() == ("a",)
    with pytest.raises(ValueError, match=r"loss.thing='b' is not registered; choose one of a"):
        registry["b"]
    with pytest.raises(ValueError, match="twice"):
        registry.register("a")(len)


# ---------------------------------------------------------------------------
# Advantages, shaping, filters

REWARDS = np.array([[1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]])


def test_grpo_by_hand():
    adv = ADVANTAGES["grpo"](REWARDS)
    std = math.sqrt(((0.5**2) * 4) / 3)  # unbiased std of [1, 0, 0, 1]
    np.testing.assert_allclose(adv[0], np.array([0.5, -0.5, -0.5, 0.5]) / (std + 1e-6), rtol=1e-6)
    np.testing.assert_allclose(adv[1], 0.0)  # equal rewards: no signal
    assert adv.dtype == np.float32
    np.testing.assert_array_equal(np.concatenate([ADVANTAGES["grpo"](row[None]) for row in REWARDS]), adv)


def test_dr_grpo_and_rloo_by_hand():
    np.testing.assert_allclose(ADVANTAGES["dr_grpo"](REWARDS)[0], [0.5, -0.5, -0.5, 0.5])
    # RLOO: 1 - mean(0, 0, 1) = 2/3; 0 - mean(1, 0, 1) = -2/3.
    np.testing.assert_allclose(ADVANTAGES["rloo"](REWARDS)[0], [2 / 3, -2 / 3, -2 / 3, 2 / 3], rtol=1e-6)
    np.testing.assert_allclose(ADVANTAGES["rloo"](REWARDS)[1], 0.0)
    np.testing.assert_allclose(ADVANTAGES["rloo"](np.array([[3.0]])), [[0.0]])


def test_overlong_shaping_by_hand():
    np.testing.assert_allclose(overlong_penalty(np.array([10, 80, 90, 100, 150]), 100, 20),
                               [0.0, 0.0, -0.5, -1.0, -1.0])
    rewards, lengths, config = np.array([1.0, 1.0, 0.0]), np.array([10, 90, 100]), ShapingConfig(100, 20)
    np.testing.assert_allclose(SHAPING["overlong"](rewards, lengths, config), [1.0, 0.5, -1.0])
    assert SHAPING["none"](rewards, lengths, config) is rewards


def test_group_filters():
    assert GROUP_FILTERS["informative"](np.array([1.0, 0.0])) and not GROUP_FILTERS["informative"](np.ones(4))
    assert GROUP_FILTERS["all"](np.ones(4))


# ---------------------------------------------------------------------------
# Policy losses and aggregations


def test_dapo_clip_higher_and_tis_by_hand():
    config = losses.LossConfig(clip_low=0.2, clip_high=0.28, tis_clip=2.0)
    old = jnp.zeros((2, 3))
    new = jnp.log(jnp.array([[1.5, 0.5, 1.1], [1.5, 0.5, 1.0]]))  # ratios
    sampler = jnp.log(jnp.array([[1.0, 1.0, 0.25], [1.0, 1.0, 1.0]]))  # TIS weights exp(old - sampler)
    advantages = jnp.array([1.0, -1.0])
    mask = jnp.array([[1, 1, 1], [1, 1, 0]])
    loss_sum, denom, metrics = losses.policy_loss(new, old, sampler, advantages, mask, config)
    # Row 0 (A=+1): max(-r, -clip(r, 0.8, 1.28)) = [-1.28, -0.5, -1.1]; TIS weights [1, 1, min(4, 2)].
    row0 = np.array([-1.28, -0.5, -1.1 * 2.0])
    # Row 1 (A=-1): max(r, clip(r)) = [1.5, 0.8]; the third token is masked.
    row1 = np.array([1.5, 0.8])
    np.testing.assert_allclose(float(loss_sum), row0.mean() + row1.mean(), rtol=1e-6)
    assert float(denom) == 2.0
    assert float(metrics["clip_fraction"]) == 2.0  # row0 token0 and row1 token1
    token_sum, token_denom, _ = losses.policy_loss(new, old, sampler, advantages, mask,
                                                   config._replace(aggregation="token-mean"))
    np.testing.assert_allclose(float(token_sum), row0.sum() + row1.sum(), rtol=1e-6)
    assert float(token_denom) == 5.0
    norm_sum, norm_denom, _ = losses.policy_loss(new, old, sampler, advantages, mask, config._replace(
        aggregation="seq-mean-token-sum-norm", max_response_tokens=8))
    np.testing.assert_allclose(float(norm_sum), row0.sum() + row1.sum(), rtol=1e-6)
    assert float(norm_denom) == 2 * 8.0  # sequences x max_response_tokens
    with pytest.raises(ValueError, match="max_response_tokens"):
        losses.policy_loss(new, old, sampler, advantages, mask, config._replace(aggregation="seq-mean-token-sum-norm"))


def test_gspo_clips_the_sequence_ratio_by_hand():
    config = losses.LossConfig(name="gspo", mismatch="none")
    old = jnp.zeros((2, 3))
    new = jnp.log(jnp.array([[1.1, 1.3, 1.0], [2.0, 2.0, 5.0]]))
    mask = jnp.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    advantages = jnp.array([1.0, 1.0])
    s0 = math.sqrt(1.1 * 1.3)  # geometric mean of row 0's ratios: inside [0.8, 1.28]
    loss_sum, denom, metrics = losses.policy_loss(new, old, None, advantages, mask, config)
    np.testing.assert_allclose(float(loss_sum), -s0 - 1.28, rtol=1e-6)  # row 1: s = 2, clipped at 1.28
    assert float(denom) == 2.0 and float(metrics["clip_fraction"]) == 2.0  # both tokens of row 1
    grads = jax.grad(lambda lp: losses.policy_loss(lp, old, None, advantages, mask, config)[0])(new)
    # GSPO's gradient: s_i A_i / |y_i| on each token of an unclipped sequence, 0 on a clipped one.
    np.testing.assert_allclose(grads, [[-s0 / 2, -s0 / 2, 0.0], [0.0, 0.0, 0.0]], rtol=1e-6)


def test_cispo_clips_the_weight_not_the_gradient_by_hand():
    config = losses.LossConfig(name="cispo", mismatch="none", aggregation="token-mean")
    new, old = jnp.log(jnp.array([[1.5, 0.9]])), jnp.zeros((1, 2))
    mask, advantages = jnp.ones((1, 2)), jnp.array([1.0])
    loss_sum, _, metrics = losses.policy_loss(new, old, None, advantages, mask, config)
    np.testing.assert_allclose(float(loss_sum), -(1.28 * math.log(1.5) + 0.9 * math.log(0.9)), rtol=1e-6)
    assert float(metrics["clip_fraction"]) == 1.0
    grads = jax.grad(lambda lp: losses.policy_loss(lp, old, None, advantages, mask, config)[0])(new)
    np.testing.assert_allclose(grads, [[-1.28, -0.9]], rtol=1e-6)  # the clipped token keeps its gradient


def test_first_update_gradient_is_the_same_for_every_loss():
    """With old = the current policy (ratio 1), DAPO, GSPO-token and CISPO all give A grad log pi per token."""
    rng = np.random.default_rng(0)
    logp, mask = jnp.asarray(rng.normal(-1.0, 0.5, (3, 4))), jnp.asarray(rng.integers(0, 2, (3, 4)) | [1, 0, 0, 0])
    advantages = jnp.asarray(rng.normal(size=3))
    grads = [jax.grad(lambda lp: losses.policy_loss(lp, jax.lax.stop_gradient(lp), None, advantages, mask,
                                                    losses.LossConfig(name=name))[0])(logp)
             for name in losses.POLICY_LOSSES.names()]
    for g in grads[1:]:
        np.testing.assert_allclose(g, grads[0], rtol=1e-6)


def test_accumulated_sums_equal_the_full_batch_mean():
    rng = np.random.default_rng(0)
    logp = jnp.asarray(rng.normal(size=(6, 5)))
    old = jnp.asarray(rng.normal(size=(6, 5)))
    adv = jnp.asarray(rng.normal(size=6))
    mask = jnp.asarray(rng.integers(0, 2, size=(6, 5)))
    for name in losses.POLICY_LOSSES.names():
        for mode in losses.AGGREGATIONS.names():
            config = losses.LossConfig(name=name, aggregation=mode, max_response_tokens=5)
            full = losses.policy_loss(logp, old, None, adv, mask, config)
            parts = [losses.policy_loss(logp[i:i + 2], old[i:i + 2], None, adv[i:i + 2], mask[i:i + 2], config)
                     for i in range(0, 6, 2)]
            total = sum(float(p[0]) for p in parts) / sum(float(p[1]) for p in parts)
            np.testing.assert_allclose(total, float(full[0]) / float(full[1]), rtol=1e-6)
    with pytest.raises(ValueError, match="loss.aggregation='sum' is not registered"):
        losses.aggregate(logp, mask, losses.LossConfig(aggregation="sum"))


# ---------------------------------------------------------------------------
# Mismatch corrections: ratios pi_old / pi_sampler [[4, 1, 0.3], [3, 2.5, (10, not a response token)]]

RATIOS = np.array([[4.0, 1.0, 0.3], [3.0, 2.5, 10.0]])
MASK = jnp.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
OLD = jnp.zeros((2, 3))
SAMPLER = -jnp.log(jnp.asarray(RATIOS))  # old - sampler = log ratio


@pytest.mark.parametrize("name,weights,metric,value", [
    ("token_tis", [[2.0, 1.0, 0.3], [2.0, 2.0]], "tis_weight", 7.3),
    ("seq_tis", [[1.2, 1.2, 1.2], [2.0, 2.0]], "tis_weight", 7.6),  # products 1.2 and 7.5 (capped at 2)
    ("token_mask", [[0.0, 1.0, 0.0], [0.0, 0.0]], "mismatch_masked", 4.0),  # [0.5, 2] keeps 1 of 5
    ("seq_mask", [[1.0, 1.0, 1.0], [0.0, 0.0]], "mismatch_masked", 2.0),  # geometric means 1.06 and 2.74
])
def test_mismatch_corrections_by_hand(name, weights, metric, value):
    config = losses.LossConfig(mismatch=name, aggregation="token-mean", tis_clip=2.0, mismatch_low=0.5,
                               mismatch_high=2.0)
    weight, metrics = mismatch.MISMATCH[name](OLD, SAMPLER, MASK, mismatch.MismatchConfig(2.0, 0.5, 2.0))
    np.testing.assert_allclose(np.asarray(weight)[0], weights[0], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(weight)[1, :2], weights[1], rtol=1e-6)
    np.testing.assert_allclose(float(metrics[metric]), value, rtol=1e-6)
    # In the loss: ratio 1 and A = 1 make each token's loss -1, times its weight; the denominator stays 5.
    loss_sum, denominator, loss_metrics = losses.policy_loss(OLD, OLD, SAMPLER, jnp.ones(2), MASK, config)
    np.testing.assert_allclose(float(loss_sum), -(sum(weights[0]) + sum(weights[1])), rtol=1e-6)
    assert float(denominator) == 5.0
    log_r = np.log(RATIOS[np.asarray(MASK) > 0])
    np.testing.assert_allclose(float(loss_metrics["sampler_logprob_gap"]), np.abs(log_r).sum(), rtol=1e-6)
    np.testing.assert_allclose(float(loss_metrics["mismatch_kl"]), (np.exp(log_r) - 1 - log_r).sum(), rtol=1e-5)


def test_mismatch_kl_of_a_tiny_gap_is_not_rounded_to_zero():
    gap = jnp.full((1, 4), 4e-5)  # f32 exp(x) - 1 - x would give 0
    metrics = mismatch.mismatch_metrics(gap, jnp.zeros((1, 4)), jnp.ones((1, 4)))
    np.testing.assert_allclose(float(metrics["mismatch_kl"]), 4 * 0.5 * 4e-5**2, rtol=1e-4)


def test_no_correction_keeps_the_metrics():
    config = losses.LossConfig(mismatch="none", aggregation="token-mean")
    loss_sum, _, metrics = losses.policy_loss(OLD, OLD, SAMPLER, jnp.ones(2), MASK, config)
    assert float(loss_sum) == -5.0 and "tis_weight" not in metrics and "mismatch_kl" in metrics


# ---------------------------------------------------------------------------
# Entropy controls (Cui et al. 2025). Advantages [1, -1], logprobs below: token means 0 and -1.4, so
# cov = (A - 0)(log pi + 1.4) = [[1.3, -0.6], [-0.9, 1.6]].

LOGP = jnp.array([[-0.1, -2.0], [-0.5, -3.0]])
ADV = jnp.array([1.0, -1.0])
ONES = jnp.ones((2, 2))


def test_covariance_by_hand():
    terms = entropy.TokenTerms(LOGP, LOGP, ADV, ONES, jnp.zeros((2, 2), bool), None)
    np.testing.assert_allclose(entropy.covariance(terms), [[1.3, -0.6], [-0.9, 1.6]], rtol=1e-6)


def test_kl_cov_penalises_the_top_covariance_tokens():
    old = LOGP - jnp.array([[0.1, 0.2], [0.3, 0.4]])  # |log pi - log pi_old| = those
    config = losses.LossConfig(mismatch="none", aggregation="token-mean", entropy_control="kl_cov",
                               entropy=entropy.EntropyConfig(kl_cov_fraction=0.25, kl_cov_coef=2.0))
    base, _, _ = losses.policy_loss(LOGP, old, None, ADV, ONES, config._replace(entropy_control="none"))
    loss_sum, _, metrics = losses.policy_loss(LOGP, old, None, ADV, ONES, config)
    np.testing.assert_allclose(float(loss_sum - base), 2.0 * 0.4, rtol=1e-5)  # only token (1, 1): cov 1.6
    assert float(metrics["entropy_control_tokens"]) == 1.0
    half = config._replace(entropy=entropy.EntropyConfig(kl_cov_fraction=0.5, kl_cov_coef=2.0))
    np.testing.assert_allclose(float(losses.policy_loss(LOGP, old, None, ADV, ONES, half)[0] - base),
                               2.0 * (0.4 + 0.1), rtol=1e-5)  # and token (0, 0): cov 1.3


def test_clip_cov_detaches_random_tokens_in_the_covariance_band():
    config = losses.LossConfig(mismatch="none", aggregation="token-mean", entropy_control="clip_cov",
                               entropy=entropy.EntropyConfig(clip_cov_fraction=0.25))  # 1 token of 4; band (1, 5)
    loss = lambda lp, cfg, key: losses.policy_loss(lp, jax.lax.stop_gradient(lp), None, ADV, ONES, cfg,  # noqa
                                                   key)[0]
    picks = set()
    for seed in range(8):
        grads = np.asarray(jax.grad(loss)(LOGP, config, jax.random.key(seed)))
        zero = {tuple(i) for i in np.argwhere(grads == 0)}
        assert len(zero) == 1 and zero <= {(0, 0), (1, 1)}  # only the tokens with cov in (1, 5)
        picks |= zero
    assert picks == {(0, 0), (1, 1)}  # both get picked across keys
    both = config._replace(entropy=entropy.EntropyConfig(clip_cov_fraction=0.5))
    grads = np.asarray(jax.grad(loss)(LOGP, both, jax.random.key(0)))
    np.testing.assert_allclose(grads, [[0.0, -1.0], [1.0, 0.0]])  # the loss sum: -A elsewhere
    # A token the policy loss already clipped is not picked: token (0, 0) with ratio 1.5 > 1.28 and A > 0.
    old = LOGP.at[0, 0].add(-math.log(1.5))
    _, _, metrics = losses.policy_loss(LOGP, old, None, ADV, ONES, both, jax.random.key(0))
    assert float(metrics["entropy_control_tokens"]) == 1.0
    with pytest.raises(ValueError, match="PRNG key"):
        losses.policy_loss(LOGP, LOGP, None, ADV, ONES, config)


# ---------------------------------------------------------------------------
# Several optimizer steps per rollout (train.steps_per_rollout)


def test_mini_batches_split_whole_groups_in_draw_order():
    parts = train_step.mini_batches(groups=5, group_size=2, steps=2)
    assert [p.tolist() for p in parts] == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]
    assert [p.tolist() for p in train_step.mini_batches(1, 3, 4)] == [[0, 1, 2]]  # empty mini-batches dropped
    assert [p.tolist() for p in train_step.mini_batches(2, 2, 1)] == [[0, 1, 2, 3]]


def test_train_metrics_over_steps():
    steps = [{"loss": 1.0, "grad_norm": 2.0, "learning_rate": 0.1, "tokens": 10.0, "clip_fraction": 0.0,
              "tis_weight": 10.0},
             {"loss": 3.0, "grad_norm": 4.0, "learning_rate": 0.2, "tokens": 30.0, "clip_fraction": 6.0,
              "tis_weight": 30.0}]
    assert train_step.train_metrics(steps) == {
        "train/loss": 2.0, "train/grad_norm": 3.0, "train/learning_rate": 0.2, "train/clip_fraction": 6.0 / 40,
        "train/tis_weight": 1.0, "train/clip_fraction_after_first": 6.0 / 30}
    assert "train/clip_fraction_after_first" not in train_step.train_metrics(steps[:1])


def test_old_logprobs_make_the_clip_act_after_an_update():
    """The old logprobs of the sampling policy give the same first step as stop_gradient (ratio 1); after an
    optimizer step on the same batch, the ratio moves and the clip acts."""
    cfg = dataclasses.replace(PRESETS["micro"], num_layers=1)
    graphdef, params, rest = nnx.split(Transformer(cfg, rngs=nnx.Rngs(0)), nnx.Param, ...)
    mesh = sharding.make_mesh(devices=jax.devices()[:1])
    rng = np.random.default_rng(0)
    prompts = [rng.integers(0, cfg.vocab_size, 4).tolist() for _ in range(4)]
    responses = [rng.integers(0, cfg.vocab_size, 6).tolist() for _ in range(4)]
    batch = build_sequences(prompts, responses, 0, [np.full(6, -3.0, np.float32)] * 4, [1.0, -1.0, 1.0, -1.0])
    micro_loss = train_step.make_micro_loss(graphdef, rest, losses.LossConfig(), 1.0)
    shardings = train_step.accumulator_shardings(micro_loss, params, mesh)
    accumulate = train_step.make_accumulate(micro_loss, shardings)
    optim = train_step.OptimSettings(lr=0.05, b1=0.9, b2=0.98, eps=1e-8, weight_decay=0.0, grad_clip=0.0,
                                     warmup_steps=0)
    tx = train_step.make_optimizer(optim)
    opt_state = train_step.init_optimizer(tx, params, mesh)
    apply = train_step.make_apply(tx, params, opt_state, mesh, train_step.learning_rate(optim))
    with jax.set_mesh(mesh):
        old = train_step.make_logprobs(graphdef, rest, 1.0)(params, batch)
        first = accumulate(params, train_step.zero_accumulator(micro_loss, params), batch, None)
        same = accumulate(params, train_step.zero_accumulator(micro_loss, params), batch, old)
        for a, b in zip(jax.tree.leaves(first.grads), jax.tree.leaves(same.grads)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
        assert float(first.metrics["clip_fraction"]) == 0.0
        params, opt_state, _ = apply(params, opt_state, first)
        second = accumulate(params, train_step.zero_accumulator(micro_loss, params), batch, old)
    assert float(second.metrics["clip_fraction"]) > 0.0
