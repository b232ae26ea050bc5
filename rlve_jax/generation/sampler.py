"""Jitted group sampling with a KV cache: prefill each prompt once, decode G rows from it.

One compiled function per (prompt bucket, prompts per chunk, G, max_new_tokens): it
prefills a chunk of right-padded prompts, copies each prompt's cache to its G rows and
runs the whole decode loop on device (`lax.while_loop`, exits once every row stopped).
Parameters, temperature, top-p and top-k are traced arguments, so new weights or new
sampling settings never recompile. Logprobs are log softmax(logits / temperature) of the
full vocabulary at the sampled token, the quantity `model.token_logprobs` computes.
For the planner: `chunk_prompts` (the chunk size a budget gives), `cache_struct` and `chunk_call` (the
jitted chunk with abstract arguments, to lower or export).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jax.sharding import Mesh

from rlve_jax.runtime import sharding
from rlve_jax.runtime.shapes import bucket, pow2_at_least, pow2_at_most
from rlve_jax.models import decode_attention
from rlve_jax.models.model import LayerCache, ModelConfig, Transformer


@dataclasses.dataclass(frozen=True)
class SampleOutput:
    """Rows are prompt-major: rows i*G .. i*G+G-1 answer prompt i."""

    prompt_index: np.ndarray  # [N] int32
    tokens: np.ndarray  # [N, max_new_tokens] int32, pad_id after the stop token
    logprobs: np.ndarray  # [N, max_new_tokens] f32, 0 after the stop token
    lengths: np.ndarray  # [N] generated tokens, the stop token included
    finished: np.ndarray  # [N] stopped on a stop id
    truncated: np.ndarray  # [N] reached max_new_tokens without a stop id
    peak_cache_bytes: int  # KV cache of the largest chunk


def prompt_bucket(length: int, buckets: Sequence[int] | None = None, minimum: int = 16) -> int:
    """The padded prompt length: the first configured bucket that fits, else a power of two."""
    if buckets:
        fits = [b for b in sorted(buckets) if b >= length]
        if not fits:
            raise ValueError(f"prompt of {length} tokens exceeds the largest bucket {max(buckets)}")
        return fits[0]
    return bucket(length, minimum)


def kv_bytes_per_token(cfg: ModelConfig) -> int:
    """Bytes of KV cache one token holds across all layers (keys and values, compute dtype)."""
    return cfg.num_layers * 2 * cfg.num_kv_heads * cfg.head_dim * jnp.dtype(cfg.compute_dtype).itemsize


def chunk_prompts(n_prompts: int, group: int, prompt_length: int, max_new_tokens: int,
                  cache_budget_tokens: int | None = None) -> int:
    """Prompts per chunk, a power of two: room for all n_prompts, or as many as cache_budget_tokens holds of
    rows x (prompt_length + max_new_tokens) cached tokens (at least one)."""
    if cache_budget_tokens is None:
        return pow2_at_least(n_prompts)
    limit = max(1, cache_budget_tokens // (group * (prompt_length + max_new_tokens)))
    return min(pow2_at_least(min(limit, n_prompts)), pow2_at_most(limit))


def cache_struct(cfg: ModelConfig, rows: int, length: int, mesh: Mesh | None):
    """The KV cache a chunk of `rows` rows of `length` positions holds, as abstract arrays placed as the
    chunk places it (LayerCache per layer, or one stacked)."""
    shape = (rows, length, cfg.num_kv_heads, cfg.head_dim)
    if cfg.scan_layers:
        shape = (cfg.num_layers, *shape)
    placed = None if mesh is None else sharding.cache_sharding(mesh, shape)
    layer = lambda: jax.ShapeDtypeStruct(shape, jnp.dtype(cfg.compute_dtype), sharding=placed)  # noqa: E731
    return LayerCache(layer(), layer()) if cfg.scan_layers else [LayerCache(layer(), layer())
                                                                  for _ in range(cfg.num_layers)]


def chunk_call(graphdef, params, *, prompts: int, prompt_length: int, group: int, max_new_tokens: int,
               mesh: Mesh | None = None, n_stop_ids: int = 1) -> tuple[Callable, tuple, dict]:
    """(jitted chunk, its abstract arguments, keywords) for a chunk of `prompts` prompts: params may be
    abstract; `fn.lower(*args, **kwargs)` or jax.export of it."""
    def struct(shape, dtype):
        placed = None if mesh is None else sharding.batch_sharding(mesh, shape)
        return jax.ShapeDtypeStruct(shape, jnp.dtype(dtype), sharding=placed)

    R = prompts * group
    key_width = jax.random.key_data(jax.random.key(0)).shape[-1]
    args = (graphdef, params, struct((prompts, prompt_length), jnp.int32), struct((prompts,), jnp.int32),
            struct((prompts,), jnp.bool_), struct((R, key_width), jnp.uint32), struct((R,), jnp.float32),
            struct((R,), jnp.float32), struct((R,), jnp.int32), struct((R,), jnp.int32),
            jax.ShapeDtypeStruct((n_stop_ids,), jnp.int32), jax.ShapeDtypeStruct((), jnp.int32))
    return _generate_chunk, args, dict(group=group, max_new_tokens=max_new_tokens, mesh=mesh)


def _per_row(value, n_prompts: int, group: int, dtype) -> np.ndarray:
    """A scalar or one value per prompt -> one value per row."""
    value = np.asarray(value, dtype)
    if value.ndim == 0:
        value = np.full(n_prompts, value, dtype)
    if value.shape != (n_prompts,):
        raise ValueError(f"expected a scalar or {n_prompts} values, got shape {value.shape}")
    return np.repeat(value, group)


def _order_keys(x: jax.Array) -> jax.Array:
    """float32 -> uint32 with the same order (NaN aside), so that thresholds can be bisected exactly."""
    x = jnp.where(x == 0, 0.0, x).astype(jnp.float32)  # -0.0 ties with +0.0
    bits = jax.lax.bitcast_convert_type(x, jnp.uint32)
    return jnp.where(bits >> 31 == 1, ~bits, bits | jnp.uint32(1 << 31))


def _bisect(keys: jax.Array, accept) -> jax.Array:
    """Per row, the smallest key t in [row min, row max] with accept(t) true (accept: [R, 1] -> [R, 1]
    bool, monotone: false below the answer, true from it on; true at the row max). keys [R, V] -> [R, 1]."""
    lo, hi = jnp.min(keys, axis=-1, keepdims=True), jnp.max(keys, axis=-1, keepdims=True)

    def step(_, bounds):
        lo, hi = bounds
        mid = lo + (hi - lo) // 2
        ok = accept(mid)
        return jnp.where(ok, lo, mid + 1), jnp.where(ok, mid, hi)

    return jax.lax.fori_loop(0, 32, step, (lo, hi))[1]  # 32 halvings of a uint32 range


def _filter_top_k_top_p(scaled: jax.Array, top_k: jax.Array, top_p: jax.Array) -> jax.Array:
    """Mask logits outside the top-k, then outside the top-p nucleus of what remains (as HF does; ties
    at a threshold are kept). Thresholds are bisected on the values' bits, 32 passes each: a sort of
    the vocabulary takes 400 ms per step on CPU at V=152k."""
    V = scaled.shape[-1]
    keys = _order_keys(scaled)  # [R, V]
    k = jnp.where((top_k > 0) & (top_k < V), top_k, V)[:, None]  # [R, 1]
    # Top-k: the k-th largest value is the smallest t with fewer than k values above it.
    in_top_k = keys >= _bisect(keys, lambda t: jnp.sum(keys > t, axis=-1, keepdims=True) < k)
    probs = jax.nn.softmax(jnp.where(in_top_k, scaled, -jnp.inf), axis=-1)
    # Top-p: keep a token when the mass strictly above it is < top_p; the cut is the smallest t whose
    # mass above is < top_p (always an actual value, so ties at it are kept).
    cut = _bisect(keys, lambda t: jnp.sum(jnp.where(keys > t, probs, 0.0), axis=-1, keepdims=True) < top_p[:, None])
    in_nucleus = (keys >= cut) | (top_p[:, None] >= 1.0)  # top-p 1 keeps all, whatever the rounding of the sums
    return jnp.where(in_top_k & in_nucleus, scaled, -jnp.inf)


def _inverse_cdf(probs: jax.Array, u: jax.Array, block: int = 1024) -> jax.Array:
    """First index whose cumulative probability reaches u times the total: probs [R, V], u [R] in (0, 1]
    -> [R] int32.

    In two levels (cumulative block sums, then a cumsum inside the one block that holds u): a
    cumsum over the whole vocabulary is the slowest op of a decode step on CPU (12 ms at V=152k).
    """
    R, V = probs.shape
    n_blocks = -(-V // block)
    blocks = jnp.pad(probs, ((0, 0), (0, n_blocks * block - V))).reshape(R, n_blocks, block)
    ends = jnp.cumsum(jnp.sum(blocks, axis=-1), axis=-1)  # [R, n_blocks] cumulative mass at each block's end
    u = u * ends[:, -1]
    b = jnp.minimum(jnp.sum(ends < u[:, None], axis=-1), n_blocks - 1)  # [R] the block that holds u
    before = jnp.where(b > 0, jnp.take_along_axis(ends, jnp.maximum(b - 1, 0)[:, None], axis=-1)[:, 0], 0.0)
    inside = jnp.cumsum(jnp.take_along_axis(blocks, b[:, None, None], axis=1)[:, 0], axis=-1) + before[:, None]
    u = jnp.minimum(u, inside[:, -1])  # rounding may put u past the block's own sum: its last likely token
    return jnp.minimum(b * block + jnp.sum(inside < u[:, None], axis=-1), V - 1).astype(jnp.int32)


def sample_tokens(logits: jax.Array, keys: jax.Array, temperature: jax.Array, top_p: jax.Array,
                  top_k: jax.Array) -> tuple[jax.Array, jax.Array]:
    """logits [R, V] f32 -> (token [R], its logprob [R]). temperature <= 0 is greedy (logprob at T=1).

    Inverse-CDF sampling: one uniform number per row instead of V Gumbel draws; skipped when every
    row is greedy (the filter and the CDF cost more than the argmax).
    """
    greedy = temperature <= 0
    scaled = logits / jnp.where(greedy, 1.0, temperature)[:, None]
    R, V = logits.shape

    def draw(scaled, keys, top_k, top_p):
        needs_filter = jnp.any(((top_k > 0) & (top_k < V)) | (top_p < 1.0))
        filtered = jax.lax.cond(needs_filter, _filter_top_k_top_p, lambda s, k, p: s, scaled, top_k, top_p)
        u = jax.vmap(lambda k: jax.random.uniform(k, minval=jnp.finfo(jnp.float32).tiny))(keys)  # [R] in (0, 1)
        return _inverse_cdf(jax.nn.softmax(filtered, axis=-1), u)

    sampled = jax.lax.cond(jnp.all(greedy), lambda *_: jnp.zeros(R, jnp.int32), draw, scaled, keys, top_k, top_p)
    token = jnp.where(greedy, jnp.argmax(logits, axis=-1), sampled).astype(jnp.int32)
    logprob = jnp.take_along_axis(jax.nn.log_softmax(scaled, axis=-1), token[:, None], axis=-1)[:, 0]
    return token, logprob


@functools.partial(jax.jit, static_argnames=("graphdef", "group", "max_new_tokens", "mesh"))
def _generate_chunk(graphdef, state, prompts, prompt_lengths, active, row_keys, temperature, top_p, top_k,
                    limits, stop_ids, pad_id, *, group: int, max_new_tokens: int, mesh: Mesh | None):
    """One chunk: prompts [P, Lp] right-padded -> tokens, logprobs [P*G, M], lengths, finished [P*G]."""
    model: Transformer = nnx.merge(graphdef, state)
    P, Lp = prompts.shape
    G, M = group, max_new_tokens

    positions = jnp.broadcast_to(jnp.arange(Lp, dtype=jnp.int32), (P, Lp))
    mask = positions < prompt_lengths[:, None]
    with decode_attention.traced_under(mesh):  # attention kernels (TPU splash) run per shard of the prompts
        h, cache = model.hidden(prompts, positions, mask, model.init_cache(P, Lp))  # [P, Lp, D]
    logits = model.logits(h[jnp.arange(P), prompt_lengths - 1])  # [P, V] f32
    def expand(c):  # each prompt's cache [.., P, Lp, K, H] goes to its G rows, with room for M new tokens
        return jnp.pad(jnp.repeat(c, G, axis=-4), [(0, 0)] * (c.ndim - 3) + [(0, M), (0, 0), (0, 0)])

    cache = sharding.constrain(jax.tree.map(expand, cache), mesh, sharding.cache_sharding)
    logits = jnp.repeat(logits, G, axis=0)  # [R, V]
    lengths = jnp.repeat(prompt_lengths, G)  # [R]
    alive = jnp.repeat(active, G)  # [R] padding prompts never generate

    def sample(logits, step):
        keys = jax.vmap(jax.random.fold_in, (0, None))(jax.random.wrap_key_data(row_keys), step)
        return sample_tokens(logits, keys, temperature, top_p, top_k)

    def emit(carry, step, token, logprob):
        out_tokens, out_logprobs, done, n_generated = carry
        live = ~done
        out_tokens = out_tokens.at[:, step].set(jnp.where(live, token, pad_id))
        out_logprobs = out_logprobs.at[:, step].set(jnp.where(live, logprob, 0.0))
        n_generated = jnp.where(live, step + 1, n_generated)
        return out_tokens, out_logprobs, done | jnp.isin(token, stop_ids) | (step + 1 >= limits), n_generated

    first, first_lp = sample(logits, 0)
    carry = (jnp.full((P * G, M), pad_id, jnp.int32), jnp.zeros((P * G, M), jnp.float32), ~alive,
             jnp.zeros(P * G, jnp.int32))
    carry = emit(carry, 0, first, first_lp)

    def cond(loop):
        step, _, _, (_, _, done, _) = loop
        return (step < M) & ~jnp.all(done)

    def body(loop):
        step, token, cache, carry = loop
        position = (lengths + step - 1)[:, None]  # [R, 1] where the previous token goes
        h, cache = model.hidden(token[:, None], position, cache=cache, decode=True)
        cache = sharding.constrain(cache, mesh, sharding.cache_sharding)
        token, logprob = sample(model.logits(h[:, 0]), step)
        return step + 1, token, cache, emit(carry, step, token, logprob)

    _, _, _, (tokens, logprobs, _, n_generated) = jax.lax.while_loop(cond, body, (1, first, cache, carry))
    finished = jnp.any((jnp.arange(M) < n_generated[:, None]) & jnp.isin(tokens, stop_ids), axis=-1)
    return tokens, logprobs, n_generated, finished


def generate(model: Transformer, prompts: Sequence[Sequence[int]], *, n_per_prompt: int = 1,
             max_new_tokens: int, temperature=1.0, top_p=1.0, top_k=-1, stop_ids: Sequence[int] = (),
             rng: jax.Array | int = 0, mesh: Mesh | None = None, cache_budget_tokens: int | None = None,
             pad_id: int = 0, prompt_buckets: Sequence[int] | None = None,
             prompt_ids: Sequence[int] | None = None, row_limits: Sequence[int] | None = None) -> SampleOutput:
    """Sample `n_per_prompt` continuations of every prompt (token id lists).

    temperature / top_p / top_k: scalars or one value per prompt (top_k <= 0 is off,
    temperature <= 0 greedy). rng: a PRNG key or an int seed; sample g of prompt i uses
    fold_in(rng, prompt_ids[i] * G + g) (prompt_ids default to 0, 1, ...), so results do not
    depend on chunking, the mesh, or which other prompts share the call. With a mesh, the
    batch is split over (data, fsdp) and heads/MLP over tensor (parameters are re-placed
    without fsdp sharding). cache_budget_tokens bounds rows x (prompt bucket + new tokens)
    held in the KV cache at once. row_limits: one response limit (<= max_new_tokens) per row, where
    the row stops as at a stop id (a length-controlled workload: experiments/bench_rollout.py).
    """
    if not prompts or any(len(p) == 0 for p in prompts):
        raise ValueError("need at least one prompt, and no empty prompt")
    n, G, M = len(prompts), n_per_prompt, max_new_tokens
    Lp = prompt_bucket(max(len(p) for p in prompts), prompt_buckets)
    per_chunk = chunk_prompts(n, G, Lp, M, cache_budget_tokens)
    cfg = model.config
    graphdef, state = nnx.split(model)
    if mesh is not None:
        state = jax.device_put(state, sharding.state_shardings(state, mesh, fsdp=False))
    key = jax.random.key(rng) if isinstance(rng, int) else rng
    ids = np.arange(n) if prompt_ids is None else np.asarray(prompt_ids)
    row_ids = (ids[:, None] * G + np.arange(G)).reshape(-1).astype(np.int32)  # [n * G]
    row_keys_all = np.asarray(jax.random.key_data(jax.vmap(jax.random.fold_in, (None, 0))(key, row_ids)))
    temps = _per_row(temperature, n, G, np.float32)
    top_ps = _per_row(top_p, n, G, np.float32)
    top_ks = _per_row(top_k, n, G, np.int32)
    limits = np.full(n * G, M, np.int32) if row_limits is None else np.asarray(row_limits, np.int32)
    if limits.shape != (n * G,) or limits.min() < 1 or limits.max() > M:
        raise ValueError(f"row_limits: expected {n * G} values in [1, {M}]")
    stops = np.asarray(list(stop_ids) or [-1], np.int32)

    def place(x):
        x = jnp.asarray(x)
        return x if mesh is None else jax.device_put(x, sharding.batch_sharding(mesh, x.shape))

    out_tokens = np.full((n * G, M), pad_id, np.int32)
    out_logprobs = np.zeros((n * G, M), np.float32)
    out_lengths = np.zeros(n * G, np.int32)
    out_finished = np.zeros(n * G, bool)
    for start in range(0, n, per_chunk):
        count = min(per_chunk, n - start)
        batch = np.full((per_chunk, Lp), pad_id, np.int32)
        lengths = np.ones(per_chunk, np.int32)
        for i, p in enumerate(prompts[start:start + count]):
            batch[i, :len(p)] = p
            lengths[i] = len(p)
        rows = slice(start * G, (start + count) * G)
        pad_rows = (per_chunk - count) * G

        def rowwise(x):
            return place(np.concatenate([np.asarray(x[rows]), np.repeat(np.asarray(x[rows][:1]), pad_rows, 0)]))

        tokens, logprobs, lengths_out, finished = _generate_chunk(
            graphdef, state, place(batch), place(lengths), place(np.arange(per_chunk) < count),
            rowwise(row_keys_all), rowwise(temps), rowwise(top_ps), rowwise(top_ks), rowwise(limits),
            jnp.asarray(stops), jnp.int32(pad_id), group=G, max_new_tokens=M, mesh=mesh)
        keep = count * G
        out_tokens[rows] = np.asarray(tokens)[:keep]
        out_logprobs[rows] = np.asarray(logprobs)[:keep]
        out_lengths[rows] = np.asarray(lengths_out)[:keep]
        out_finished[rows] = np.asarray(finished)[:keep]
    peak = per_chunk * G * (Lp + M) * kv_bytes_per_token(cfg)
    return SampleOutput(
        prompt_index=np.repeat(np.arange(n, dtype=np.int32), G), tokens=out_tokens, logprobs=out_logprobs,
        lengths=out_lengths, finished=out_finished, truncated=~out_finished & (out_lengths == limits),
        peak_cache_bytes=int(peak))
