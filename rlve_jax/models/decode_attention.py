"""Decode attention over the rollout engine's slot cache: one new token per row, cost set by live lengths.

The slot cache is laid out [B, K, S, H] (rows, KV heads, positions, head dim) so that a row's keys for
one KV head are contiguous, which is what the Pallas decode kernels read. Three implementations, same
signature, same values up to rounding (tests/test_engine.py, tests/test_tpu_decode_attention.py):
- "blockwise" (any backend; the CPU default, and TPU's where the kernel does not fit): a while loop over
  key blocks of `block` positions up to the longest live row, with an online softmax (FlashAttention's
  recurrence); blocks past every row's length are never read.
- "pallas_gpu" (the GPU default): jax.experimental.pallas.ops.gpu.decode_attention's kernel, one
  program per (row, KV head, key split); splits past a row's own length skip their loads, so each row
  reads only its own live keys. `interpret=True` runs the same kernel code on CPU (tests).
- "pallas_tpu" (the TPU default where head_dim is a multiple of 128): jax.experimental.pallas.ops.tpu's
  paged_attention kernel. Each row is one sequence whose single "KV head" is its K heads side by side
  ([B, S, K*H] in pages of up to 512 keys, one DMA each), and the kernel loops over a row's pages only up
  to its own length. The queries of KV head j are zero outside j's H dims, so each head scores only its
  own keys, at K times the FLOPs of a per-head kernel (decode reads memory, it does not fill the MXU).
  Why this view: with one KV head per chip it is a reshape of [B, 1, S, H]; with several, XLA keeps the
  cache inside the decode loop as [B, S, K, H] physically (tiled over (K, H) for its one-position
  writes), and this view is that layout's own, while per-(row, head) pages would cost a copy of each
  layer's cache every step (both seen in libtpu's compiled decode segment). The kernel needs head_dim
  % 128 == 0 (its softmax statistics take the query's block shape) and computes in f32 from K/V rounded
  to bf16 (what a TPU's default-precision f32 matmul does too). "pallas_tpu_interpret" runs the same
  kernel in Pallas' TPU interpreter on CPU (tests).
The kernels run on each device's shard (rows over the data axes, KV heads over "tensor" where they divide)
when traced under a mesh (`traced_under(mesh)`, as the engine's decode segment is): the SPMD partitioner
cannot split a Mosaic kernel call (it refuses) nor a Triton one (a custom call without a partitioning rule
gets replicated operands: the whole cache on every device).
"""

from __future__ import annotations

import contextlib
import functools

import jax
import jax.numpy as jnp

from rlve_jax.models.attention import per_shard

IMPLS = ("blockwise", "pallas_gpu", "pallas_gpu_interpret", "pallas_tpu", "pallas_tpu_interpret")
TPU_LANES = 128  # the paged kernel's head_dim must be a multiple of this
TPU_PAGE_KEYS = 512  # the paged kernel's keys per page and compute block, at most


def default_impl(head_dim: int, backend: str | None = None) -> str:
    """The GPU kernel on GPU; the TPU kernel on TPU where head_dim fits it; the pure-JAX loop elsewhere
    (backend: JAX's default backend, or the platform compiled for)."""
    backend = backend or jax.default_backend()
    if backend == "gpu":
        return "pallas_gpu"
    return "pallas_tpu" if backend == "tpu" and tpu_kernel_fits(head_dim) else "blockwise"


def tpu_kernel_fits(head_dim: int) -> bool:
    """Whether the paged TPU kernel takes this head dim (Qwen2.5-1.5B and up, Qwen3: 128; Qwen2.5-0.5B: 64)."""
    return head_dim % TPU_LANES == 0


def traced_under(mesh) -> contextlib.AbstractContextManager:
    """The context to trace decode attention in so that its kernels run per shard of `mesh` (a Mesh or an
    AbstractMesh; None: no mesh, one device)."""
    return contextlib.nullcontext() if mesh is None else jax.sharding.use_abstract_mesh(mesh.abstract_mesh)


def key_block(slot_length: int) -> int:
    """The key block: the largest power of two up to 128 that divides the slot length (a multiple of 16)."""
    if slot_length % 16:
        raise ValueError(f"slot length {slot_length} is not a multiple of 16")
    return next(b for b in (128, 64, 32, 16) if slot_length % b == 0)


def tpu_page(slot_length: int) -> int:
    """The paged TPU kernel's page for a slot length: the largest multiple of 16 up to TPU_PAGE_KEYS that
    divides it. A page is also the kernel's compute block (one DMA each): each row reads its live pages."""
    if slot_length % 16:
        raise ValueError(f"slot length {slot_length} is not a multiple of 16")
    return 16 * max(d for d in range(1, TPU_PAGE_KEYS // 16 + 1) if slot_length // 16 % d == 0)


def decode_attention(q: jax.Array, k: jax.Array, v: jax.Array, kv_lengths: jax.Array, *,
                     impl: str | None = None) -> jax.Array:
    """q [B, N, H], k/v [B, K, S, H], kv_lengths [B] (>= 1) -> [B, N, H]: softmax(q k^T / sqrt(H)) v
    over the first kv_lengths[b] positions of row b (query heads grouped over KV heads as Qwen's GQA)."""
    impl = impl or default_impl(q.shape[-1])
    block = key_block(k.shape[2])
    if impl == "blockwise":
        return _blockwise(q, k, v, kv_lengths, block)
    if impl in ("pallas_gpu", "pallas_gpu_interpret"):
        kernel = functools.partial(_pallas_gpu, block=block, interpret=impl == "pallas_gpu_interpret")
        return per_shard(kernel, q, k, v, kv_lengths, head_axis=1)
    if impl in ("pallas_tpu", "pallas_tpu_interpret"):
        kernel = functools.partial(_pallas_tpu, interpret=impl == "pallas_tpu_interpret")
        return per_shard(kernel, q, k, v, kv_lengths, head_axis=1)
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


def _pallas_gpu(q, k, v, kv_lengths, *, block, interpret):
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


def _pallas_tpu(q, k, v, kv_lengths, *, interpret):
    from jax.experimental.pallas import tpu as pltpu
    from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention

    B, N, H = q.shape
    _, K, S, _ = k.shape
    if not tpu_kernel_fits(H):
        raise ValueError(f"decode attention 'pallas_tpu' needs head_dim a multiple of {TPU_LANES}, not {H} "
                         "(use 'blockwise')")
    page = tpu_page(S)
    own = jnp.eye(K, dtype=bool)[:, None, :, None]  # [K, 1, K, 1]: KV head j's dims among the K*H side by side
    q_scaled = (q.astype(jnp.float32) / jnp.sqrt(jnp.float32(H))).reshape(B, K, N // K, 1, H)  # [B, K, G, 1, H]
    q_wide = jnp.where(own, q_scaled, 0.0).reshape(B, N, K * H)  # zero outside its own head's dims
    k_pages, v_pages = (x.transpose(0, 2, 1, 3).reshape(1, B * S // page, page, K * H) for x in (k, v))
    page_table = jnp.arange(B * S // page, dtype=jnp.int32).reshape(B, S // page)  # row -> its pages
    with pltpu.force_tpu_interpret_mode() if interpret else contextlib.nullcontext():
        out = paged_attention(q_wide, k_pages, v_pages, kv_lengths.astype(jnp.int32), page_table,
                              pages_per_compute_block=1)  # [B, N, K*H] f32
    out = jnp.where(own, out.reshape(B, K, N // K, K, H), 0.0).sum(axis=3)  # [B, K, G, H]: its own head's dims
    return out.reshape(B, N, H).astype(q.dtype)
