"""The sampler against transformers' greedy generate and our own training forward.

Every call uses the same shapes (3 prompts, G=2, 8 new tokens, one stop id), so the
whole file compiles the generation function once per model layout and mesh.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from rlve_jax.models import convert
from rlve_jax.generation import sampler
from rlve_jax.runtime import sharding
from rlve_jax.models.model import token_logprobs

PROMPTS = [[1, 5, 9], [7, 3, 2, 8, 8, 1, 4, 60, 61], [100]]
G, M = 2, 8
NO_STOP = [-1]


@pytest.fixture(scope="module")
def model(hf_qwen3):
    return convert.load_hf(hf_qwen3[0])


def generate(model, **kwargs):
    kwargs = {"n_per_prompt": G, "max_new_tokens": M, "stop_ids": NO_STOP, "rng": 0, **kwargs}
    return sampler.generate(model, PROMPTS, **kwargs)


def sequences(out):
    """Prompt + generated tokens, right-padded, for a training forward over the rows."""
    rows = [PROMPTS[i] + list(out.tokens[r, :out.lengths[r]]) for r, i in enumerate(out.prompt_index)]
    total = max(map(len, rows))
    tokens = np.array([r + [0] * (total - len(r)) for r in rows], np.int32)
    mask = np.arange(total)[None] < np.array([len(r) for r in rows])[:, None]
    return tokens, np.broadcast_to(np.arange(total, dtype=np.int32), tokens.shape), mask


@nnx.jit
def full_logprobs(model, tokens, positions, mask, temperature):
    return token_logprobs(model, tokens, positions, mask, temperature), model(tokens, positions, mask)


def test_greedy_equals_transformers_generate(model, hf_qwen3):
    import torch

    out = generate(model, temperature=0.0)
    assert list(out.prompt_index) == [0, 0, 1, 1, 2, 2]
    for r, i in enumerate(out.prompt_index):
        with torch.no_grad():
            ref = hf_qwen3[1].generate(torch.tensor([PROMPTS[i]]), max_new_tokens=M, min_new_tokens=M,
                                       do_sample=False, eos_token_id=None, pad_token_id=0)
        assert out.tokens[r].tolist() == ref[0, len(PROMPTS[i]):].tolist()
    assert out.truncated.all() and not out.finished.any() and (out.lengths == M).all()


def test_sampled_logprobs_equal_the_training_forward(model):
    temperature = 0.8
    out = generate(model, temperature=temperature, rng=3)
    lp, _ = full_logprobs(model, *sequences(out), temperature)
    for r, i in enumerate(out.prompt_index):
        start = len(PROMPTS[i]) - 1
        np.testing.assert_allclose(out.logprobs[r], lp[r, start:start + M], atol=1e-4)
    assert len({tuple(t) for t in out.tokens}) == len(out.tokens)  # G samples of a prompt differ


def test_stop_token_ends_a_row_and_pads_after_it(model):
    greedy = generate(model, temperature=0.0)
    stop = int(greedy.tokens[2, 3])  # the 4th token of prompt 1's rows
    first = {r: list(greedy.tokens[r]).index(stop) for r in range(len(greedy.tokens)) if stop in greedy.tokens[r]}
    out = generate(model, temperature=0.0, stop_ids=[stop], pad_id=-7)
    for r in range(len(out.tokens)):
        if r in first:
            n = first[r] + 1
            assert out.finished[r] and not out.truncated[r] and out.lengths[r] == n
            assert out.tokens[r, :n].tolist() == greedy.tokens[r, :n].tolist()
            assert (out.tokens[r, n:] == -7).all() and (out.logprobs[r, n:] == 0).all()
        else:
            assert out.truncated[r] and not out.finished[r] and out.lengths[r] == M


def test_same_rng_same_samples_whatever_the_chunking(model):
    a = generate(model, temperature=1.0, rng=5)
    b = generate(model, temperature=1.0, rng=5)
    c = generate(model, temperature=1.0, rng=6)
    np.testing.assert_array_equal(a.tokens, b.tokens)
    assert (a.tokens != c.tokens).any()
    chunked = generate(model, temperature=1.0, rng=5, cache_budget_tokens=G * (16 + M))  # one prompt per chunk
    assert chunked.peak_cache_bytes * 4 == a.peak_cache_bytes
    np.testing.assert_array_equal(chunked.tokens, a.tokens)
    np.testing.assert_allclose(chunked.logprobs, a.logprobs, atol=1e-5)


def test_a_prompts_samples_depend_on_its_id_not_on_the_other_prompts(model):
    a = generate(model, temperature=1.0, rng=5)
    order = [2, 0, 1]  # the same prompts reordered, named by their ids (same shapes: no new compilation)
    b = sampler.generate(model, [PROMPTS[i] for i in order], n_per_prompt=G, max_new_tokens=M, stop_ids=NO_STOP,
                         rng=5, temperature=1.0, prompt_ids=order)
    for j, i in enumerate(order):
        np.testing.assert_array_equal(b.tokens[j * G:(j + 1) * G], a.tokens[i * G:(i + 1) * G])


@pytest.mark.parametrize("top_k, top_p", [(3, 1.0), (-1, 0.6), (5, 0.5)])
def test_top_k_and_top_p_samples_stay_in_the_allowed_set(model, top_k, top_p):
    out = generate(model, temperature=1.5, top_k=top_k, top_p=top_p, rng=11)
    _, logits = full_logprobs(model, *sequences(out), 1.5)
    for r, i in enumerate(out.prompt_index):
        for t in range(M):
            step = np.asarray(logits[r, len(PROMPTS[i]) - 1 + t], np.float64) / 1.5
            order = np.argsort(-step)
            allowed = order[:top_k] if top_k > 0 else order
            probs = np.exp(step[allowed] - step[allowed].max())
            probs /= probs.sum()
            nucleus = allowed[: int(np.searchsorted(np.cumsum(probs), top_p) + 1)]
            assert out.tokens[r, t] in nucleus


def test_new_sampling_settings_and_new_params_do_not_recompile(model):
    generate(model, temperature=0.5)
    compiled = sampler._generate_chunk._cache_size()
    generate(model, temperature=[0.3, 0.0, 1.2], top_p=0.9, top_k=[4, -1, 7], rng=jax.random.key(9))
    graphdef, state = nnx.split(model)
    new = nnx.merge(graphdef, jax.tree.map(lambda x: x * 1.01, state))
    generate(new, temperature=0.5, stop_ids=[3])
    assert sampler._generate_chunk._cache_size() == compiled


def test_eight_device_mesh_matches_one_device(model):
    mesh = sharding.make_mesh(data=4, fsdp=1, tensor=2)
    for temperature in (0.0, 0.9):
        single = generate(model, temperature=temperature, rng=2)
        sharded = generate(model, temperature=temperature, rng=2, mesh=mesh)
        np.testing.assert_array_equal(sharded.tokens, single.tokens)
        np.testing.assert_allclose(sharded.logprobs, single.logprobs, atol=1e-5)


def test_prompt_buckets():
    assert sampler.prompt_bucket(3) == 16 and sampler.prompt_bucket(17) == 32
    assert sampler.prompt_bucket(100, [64, 128, 512]) == 128
    with pytest.raises(ValueError):
        sampler.prompt_bucket(600, [64, 128, 512])


def test_sample_tokens_filters():
    """Rows cycle through greedy, top-k=1, top-p=0.7 (two tokens) and top-p=0.4 (one token)."""
    n = 400
    logits = jnp.log(jnp.tile(jnp.array([[0.5, 0.3, 0.15, 0.05]]), (n, 1)))
    kind = np.arange(n) % 4
    tokens, logprobs = jax.jit(sampler.sample_tokens)(
        logits, jax.random.split(jax.random.key(0), n), jnp.where(kind == 0, 0.0, 1.0),
        jnp.array([1.0, 1.0, 0.7, 0.4])[kind], jnp.array([-1, 1, -1, -1])[kind])
    tokens = np.asarray(tokens)
    assert (tokens[kind != 2] == 0).all() and set(tokens[kind == 2]) == {0, 1}
    np.testing.assert_allclose(logprobs, logits[jnp.arange(n), tokens], rtol=1e-6)


@pytest.mark.parametrize("V", [5, 256, 257, 3000])
def test_two_level_inverse_cdf_finds_the_first_index_reaching_u(V):
    """Against a float64 cumsum; sparse rows (zeros across block edges) never yield a zero-probability token."""
    rng = np.random.default_rng(V)
    probs = (rng.random((256, V)) * (rng.random((256, V)) < 0.2)).astype(np.float32)
    probs[:, rng.integers(0, V, 256)] += 0.01
    u = rng.random(256).astype(np.float32)
    u[:4] = [np.float32(1e-30), np.nextafter(np.float32(1), np.float32(0)), 0.5, 0.999999]
    got = np.asarray(sampler._inverse_cdf(jnp.asarray(probs), jnp.asarray(u), block=64))
    cdf = np.cumsum(probs.astype(np.float64), axis=-1)
    expected = np.minimum(np.sum(cdf < u[:, None] * cdf[:, -1:], axis=-1), V - 1)
    assert np.mean(got == expected) > 0.98  # float32 block sums vs a float64 scan: rare ties differ
    assert (probs[np.arange(256), got] > 0).all()
    assert got[1] == np.flatnonzero(probs[1])[-1]  # u just below 1: the last likely token
    # u = 1 over dense mass that ends mid-vocabulary: the block's own cumsum rounds differently from the
    # block sums, and the answer must still be the last likely token, not the zero after it.
    dense = np.zeros((64, V), np.float32)
    dense[:, :(V + 1) // 2] = rng.random((64, (V + 1) // 2)) + 0.1
    last = np.asarray(sampler._inverse_cdf(jnp.asarray(dense), jnp.ones(64), block=64))
    np.testing.assert_array_equal(last, (V + 1) // 2 - 1)


def test_bisected_top_k_top_p_filter_equals_a_sorted_float64_reference():
    """Keep the top-k (ties kept), then every token whose probability mass strictly above it is < top_p."""
    rng = np.random.default_rng(0)
    for V in (4, 50, 1000):
        x = rng.standard_normal((48, V)).astype(np.float32) * rng.choice([0.1, 1.0, 5.0], (48, 1)).astype(np.float32)
        x[::3] = np.round(x[::3], 1)  # ties, and -0.0 next to 0.0
        top_k = rng.choice([-1, 0, 1, 3, V, V + 5], 48).astype(np.int32)
        top_p = rng.choice([1.0, 0.9, 0.5, 0.1, 0.0], 48).astype(np.float32)
        kept = np.isfinite(np.asarray(sampler._filter_top_k_top_p(jnp.asarray(x), jnp.asarray(top_k),
                                                                  jnp.asarray(top_p))))
        for row, k, p, got in zip(x, top_k, top_p, kept):
            allowed = row >= np.sort(row)[::-1][(k if 0 < k < V else V) - 1]
            probs = np.exp(np.where(allowed, row, -np.inf).astype(np.float64) - row.max())
            probs /= probs.sum()
            above = np.array([probs[row > v].sum() for v in row])
            expected = allowed & ((above < p) | (p >= 1)) if p > 0 else row == row.max()
            np.testing.assert_array_equal(got, expected)
