"""Decode attention over the rollout engine's slot cache: one new token per row, cost set by live lengths.

The slot cache is laid out [B, K, S, H] (rows, KV heads, positions, head dim) so that a row's keys for
one KV head are contiguous, which is what the Pallas GPU decode kernel reads. Two implementations,
same signature, same values (tests/test_engine.py):
- "blockwise" (any backend; the CPU/TPU default): a while loop over key blocks of `block` positions up
  to the longest live row, with an online softmax (FlashAttention's recurrence); blocks past every
  row's length are never read.
- "pallas_gpu" (the GPU default): jax.experimental.pallas.ops.gpu.decode_attention's kernel, one
  program per (row, KV head, key split); splits past a row's own length skip their loads, so each row
  reads only its own live keys. `interpret=True` runs the same kernel code on CPU (tests).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

IMPLS = ("blockwise", "pallas_gpu", "pallas_gpu_interpret")


def default_impl() -> str:
    """The kernel on GPU, the pure-JAX loop elsewhere (TPU's paged kernels need a paged layout)."""
    return "pallas_gpu" if jax.default_backend() == "gpu" else "blockwise"


def key_block(slot_length: int) -> int:
    """The key block: the largest power of two up to 128 that divides the slot length (a multiple of 16)."""
    if slot_length % 16:
        raise ValueError(f"slot length {slot_length} is not a multiple of 16")
    return next(b for b in (128, 64, 32, 16) if slot_length % b == 0)


def decode_attention(q: jax.Array, k: jax.Array, v: jax.Array, kv_lengths: jax.Array, *,
                     impl: str | None = None) -> jax.Array:
    """q [B, N, H], k/v [B, K, S, H], kv_lengths [B] (>= 1) -> [B, N, H]: softmax(q k^T / sqrt(H)) v
    over the first kv_lengths[b] positions of row b (query heads grouped over KV heads as Qwen's GQA)."""
    impl = impl or default_impl()
    block = key_block(k.shape[2])
    if impl == "blockwise":
        return _blockwise(q, k, v, kv_lengths, block)
    if impl in ("pallas_gpu", "pallas_gpu_interpret"):
        return _pallas_gpu(q, k, v, kv_lengths, block, interpret=impl == "pallas_gpu_interpret")
    raise ValueError(f"unknown decode attention {impl!r}; known: {IMPLS}")


def _blockwise(q, k, v, kv_lengths, block):
    B, N, H = q.shape
    _, K, S, _ = k.shape
    qg = (q.astype(jnp.float32) / jnp.sqrt(jnp.float32(H))).reshape(B, K, N // K, H)  # [B, K, G, H]
    n_blocks = (jnp.max(kv_lengths) + block - 1) // block  # blocks the longest row needs

    def body(carry):
        j, m, l, acc = carry
        kb = jax.lax.dynamic_slice_in_dim(k, j * block, block, axis=2).astype(jnp.float32)  # [B, K, blk, H]
        vb = jax.lax.dynamic_slice_in_dim(v, j * block, block, axis=2).astype(jnp.float32)
        s = jnp.einsum("BKGH,BKSH->BKGS", qg, kb)  # [B, K, G, blk]
        live = (j * block + jnp.arange(block))[None, :] < kv_lengths[:, None]  # [B, blk]
        s = jnp.where(live[:, None, None, :], s, -jnp.inf)
        m_new = jnp.maximum(m, jnp.max(s, axis=-1))  # [B, K, G]; finite: position 0 is always live
        p = jnp.exp(s - m_new[..., None])
        scale = jnp.exp(m - m_new)
        acc = acc * scale[..., None] + jnp.einsum("BKGS,BKSH->BKGH", p, vb)
        return j + 1, m_new, l * scale + jnp.sum(p, axis=-1), acc

    init = (jnp.int32(0), jnp.full((B, K, N // K), -jnp.inf, jnp.float32), jnp.zeros((B, K, N // K), jnp.float32),
            jnp.zeros((B, K, N // K, H), jnp.float32))
    _, _, l, acc = jax.lax.while_loop(lambda c: c[0] < n_blocks, body, init)
    return (acc / l[..., None]).reshape(B, N, H).astype(q.dtype)


def _pallas_gpu(q, k, v, kv_lengths, block, interpret):
    from jax.experimental.pallas.ops.gpu import decode_attention as kernels

    B, N, H = q.shape
    _, K, S, _ = k.shape
    n_blocks = S // block
    splits = max(d for d in range(1, 17) if n_blocks % d == 0)  # key splits run in parallel, up to 16
    one = functools.partial(kernels.decode_attn_unbatched, sm_scale=1.0 / float(H) ** 0.5, block_h=16,
                            block_k=block, k_splits=splits, num_warps=None, num_stages=2, grid=None,
                            interpret=interpret, debug=False, return_residuals=False, normalize_output=True)
    lengths = jnp.broadcast_to(kv_lengths[:, None], (B, K)).astype(jnp.int32)
    out = jax.vmap(jax.vmap(lambda q, k, v, n: one(q, k, v, None, n)))(q.reshape(B, K, N // K, H), k, v, lengths)
    return out.reshape(B, N, H).astype(q.dtype)  # the kernel returns f32 (a bf16 model's layer scan needs bf16)
