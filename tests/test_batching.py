"""Training micro-batches: fine length buckets, token-budget grouping, and gradient accumulation over
micro-batches of different shapes giving the unbatched loss and gradients in every aggregation mode."""

import dataclasses

import jax
import numpy as np
import pytest
from flax import nnx

from rlve_jax.rl import losses
from rlve_jax.runtime import sharding
from rlve_jax.rl.batching import (build_sequences, fine_bucket, fixed_micro_batches, padding_fraction,
                               token_budget_micro_batches)
from rlve_jax.models.model import PRESETS, Transformer
from rlve_jax.rl.train_step import accumulator_shardings, make_accumulate, make_micro_loss, zero_accumulator


def test_fine_bucket_bounds_padding_and_shapes():
    assert [fine_bucket(n) for n in (1, 16, 17, 129, 1025, 24576, 26625)] == [16, 16, 32, 144, 1152, 24576, 28672]
    lengths = np.arange(1, 40000)
    buckets = np.array([fine_bucket(int(n)) for n in lengths])
    assert np.all(buckets >= lengths) and np.all(buckets % 16 == 0)
    assert np.all((buckets - lengths)[lengths > 128] <= lengths[lengths > 128] / 8)
    assert len(np.unique(buckets[lengths > 1024])) <= 8 * 6  # 8 shapes per doubling


def heavy_tail(n: int, seed: int = 0) -> np.ndarray:
    """Prompt + response lengths: responses lognormal (median 4k), capped at 24,576."""
    rng = np.random.default_rng(seed)
    return np.minimum(np.exp(rng.normal(np.log(4000), 1.0, n)).astype(int), 24576) + rng.integers(100, 600, n)


@pytest.mark.parametrize("devices,budget", [(8, 2**18), (8, 2**19), (1, 2**16)])
def test_token_budget_grouping_pads_under_ten_percent(devices, budget):
    lengths = heavy_tail(2048)
    batches = token_budget_micro_batches(lengths, budget, devices)
    rows = np.concatenate([b.rows for b in batches])
    assert sorted(rows[rows >= 0].tolist()) == list(range(len(lengths)))  # every sequence exactly once
    for b in batches:
        assert len(b.rows) % devices == 0 and len(b.rows) * b.length <= budget
        assert np.all(lengths[b.rows[b.rows >= 0]] <= b.length)
    padding = padding_fraction(lengths, batches)
    fixed = padding_fraction(lengths, fixed_micro_batches(len(lengths), len(lengths), 16, 32768))
    print(f"padding: token budget {padding:.3f} in {len(batches)} micro-batches of "
          f"{len({(len(b.rows), b.length) for b in batches})} shapes; fixed 16 x 32768: {fixed:.3f}")
    assert padding <= 0.10 < fixed


def test_token_budget_too_small_for_one_row_per_device():
    with pytest.raises(ValueError, match="at least 1024"):
        token_budget_micro_batches([100, 120], 1000, row_multiple=8)


@pytest.fixture(scope="module")
def setup():
    """A 1-layer micro model on one device, and 12 sequences of mixed lengths with random advantages."""
    cfg = dataclasses.replace(PRESETS["micro"], num_layers=1)
    model = Transformer(cfg, rngs=nnx.Rngs(0))
    mesh = sharding.make_mesh(devices=jax.devices()[:1])
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    rng = np.random.default_rng(0)
    prompt_lengths, response_lengths = rng.integers(2, 9, 12), rng.integers(1, 40, 12)
    prompts = [rng.integers(0, cfg.vocab_size, n).tolist() for n in prompt_lengths]
    responses = [rng.integers(0, cfg.vocab_size, n).tolist() for n in response_lengths]
    sampler = [rng.normal(-2.0, 0.3, n).astype(np.float32) for n in response_lengths]
    advantages = rng.normal(size=12).astype(np.float32)
    return graphdef, params, rest, mesh, (prompts, responses, sampler, advantages)


def _accumulate(setup, aggregation: str, batches):
    """The Accumulator after accumulating `batches` ((sequence indices, padded length) pairs)."""
    graphdef, params, rest, mesh, (prompts, responses, sampler, advantages) = setup
    config = losses.LossConfig(aggregation=aggregation, max_response_tokens=64)
    micro_loss = make_micro_loss(graphdef, rest, config, 1.0)
    accumulate = make_accumulate(micro_loss, accumulator_shardings(micro_loss, params, mesh))
    acc = zero_accumulator(micro_loss, params)
    with jax.set_mesh(mesh):
        for rows, length in batches:
            pick = lambda xs: [xs[i] for i in rows]  # noqa: E731
            micro = build_sequences(pick(prompts), pick(responses), 0, pick(sampler), advantages[rows], length=length)
            acc = accumulate(params, acc, micro)
    return acc


@pytest.mark.parametrize("aggregation", losses.AGGREGATIONS.names())
def test_accumulated_micro_batches_match_the_unbatched_step(setup, aggregation):
    """The loss (sum / denominator), its gradients and the metric sums over micro-batches of two shapes
    equal those of one micro-batch holding every sequence."""
    prompts, responses = setup[-1][0], setup[-1][1]
    lengths = np.array([len(p) + len(r) for p, r in zip(prompts, responses)])
    batches = token_budget_micro_batches(lengths, 128, row_multiple=1)
    assert len({(len(b.rows), b.length) for b in batches}) == 2
    whole = _accumulate(setup, aggregation, [(np.arange(12), 48)])
    grouped = _accumulate(setup, aggregation, [(b.rows[b.rows >= 0], b.length) for b in batches])
    assert float(grouped.denominator) == float(whole.denominator) > 0
    assert float(grouped.tokens) == float(whole.tokens) == sum(len(r) for r in responses)
    np.testing.assert_allclose(float(grouped.loss / grouped.denominator), float(whole.loss / whole.denominator),
                               rtol=1e-5)
    for g, w in zip(jax.tree.leaves(grouped.grads), jax.tree.leaves(whole.grads)):
        np.testing.assert_allclose(g / grouped.denominator, w / whole.denominator, atol=1e-7, rtol=1e-5)
    for name in whole.metrics:
        np.testing.assert_allclose(float(grouped.metrics[name]), float(whole.metrics[name]), rtol=1e-5)
