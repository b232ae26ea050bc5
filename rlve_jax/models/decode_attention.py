"""Decode attention over the rollout engine's slot cache: one new token per row, cost set by live lengths.

The slot cache is laid out [B, S, K, H] (rows, positions, KV heads, head dim): a decode step writes one
position's K x H values, and on TPU that is also the layout XLA keeps the cache in through the decode loop, so the
cache crosses a segment without a copy (libtpu's compiled segment, tests/test_tpu_compile.py). Three
implementations, same signature, same values up to rounding (tests/test_engine.py,
tests/test_tpu_decode_attention.py):
- "blockwise" (any backend; the CPU default, and TPU's where the kernel does not fit): a while loop over
  key blocks of `block` positions up to the longest live row, with an online softmax (FlashAttention's
  recurrence); blocks past every row's length are never read.
- "pallas_gpu" (the GPU default): jax.experimental.pallas.ops.gpu.decode_attention's kernel, one
  program per (row, KV head, key split); splits past a row's own length skip their loads, so each row
  reads only its own live keys. The program of KV head j reads its keys in place, strided by K x H (a grid
  axis over the cache's head axis; no transposed copy). `interpret=True` runs the same kernel code on CPU (tests).
- "pallas_tpu" (the TPU default where head_dim is a multiple of 128): jax.experimental.pallas.ops.tpu's
  paged_attention kernel. Each row is one sequence whose single "KV head" is its K heads side by side
  ([B, S, K*H] in pages of up to 512 keys, one DMA each: a reshape of the cache), and the kernel loops over a
  row's pages only up to its own length. The queries of KV head j are zero outside j's H dims, so each head
  scores only its own keys, at K times the FLOPs of a per-head kernel (decode reads memory, it does not fill
  the MXU); per-(row, head) pages would cost a copy of each layer's cache every step. The kernel needs
  head_dim % 128 == 0 (its softmax statistics take the query's block shape) and computes in f32 from K/V
  rounded to bf16 (what a TPU's default-precision f32 matmul does too). "pallas_tpu_interpret" runs the same
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
    """q [B, N, H], k/v [B, S, K, H], kv_lengths [B] (>= 1) -> [B, N, H]: softmax(q k^T / sqrt(H)) v
    over the first kv_lengths[b] positions of row b (query heads grouped over KV heads as Qwen's GQA)."""
    impl = impl or default_impl(q.shape[-1])
    block = key_block(k.shape[1])
    if impl == "blockwise":
        return _blockwise(q, k, v, kv_lengths, block)
    if impl in ("pallas_gpu", "pallas_gpu_interpret"):
        kernel = functools.partial(_pallas_gpu, block=block, interpret=impl == "pallas_gpu_interpret")
        return per_shard(kernel, q, k, v, kv_lengths, head_axis=1, kv_head_axis=2)
    if impl in ("pallas_tpu", "pallas_tpu_interpret"):
        kernel = functools.partial(_pallas_tpu, interpret=impl == "pallas_tpu_interpret")
        return per_shard(kernel, q, k, v, kv_lengths, head_axis=1, kv_head_axis=2)
    raise ValueError(f"unknown decode attention {impl!r}; known: {IMPLS}")


def _blockwise(q, k, v, kv_lengths, block):
    B, N, H = q.shape
    _, S, K, _ = k.shape
    qg = (q.astype(jnp.float32) / jnp.sqrt(jnp.float32(H))).reshape(B, K, N // K, H)  # [B, K, G, H]
    n_blocks = (jnp.max(kv_lengths) + block - 1) // block  # blocks the longest row needs

    def body(carry):
        j, m, l, acc = carry
        kb = jax.lax.dynamic_slice_in_dim(k, j * block, block, axis=1).astype(jnp.float32)  # [B, blk, K, H]
        vb = jax.lax.dynamic_slice_in_dim(v, j * block, block, axis=1).astype(jnp.float32)
        s = jnp.einsum("BKGH,BSKH->BKGS", qg, kb)  # [B, K, G, blk]
        live = (j * block + jnp.arange(block))[None, :] < kv_lengths[:, None]  # [B, blk]
        s = jnp.where(live[:, None, None, :], s, -jnp.inf)
        m_new = jnp.maximum(m, jnp.max(s, axis=-1))  # [B, K, G]; finite: position 0 is always live
        p = jnp.exp(s - m_new[..., None])
        scale = jnp.exp(m - m_new)
        acc = acc * scale[..., None] + jnp.einsum("BKGS,BSKH->BKGH", p, vb)
        return j + 1, m_new, l * scale + jnp.sum(p, axis=-1), acc

    init = (jnp.int32(0), jnp.full((B, K, N // K), -jnp.inf, jnp.float32), jnp.zeros((B, K, N // K), jnp.float32),
            jnp.zeros((B, K, N // K, H), jnp.float32))
    _, _, l, acc = jax.lax.while_loop(lambda c: c[0] < n_blocks, body, init)
    return (acc / l[..., None]).reshape(B, N, H).astype(q.dtype)


def _pallas_gpu(q, k, v, kv_lengths, *, block, interpret):
    """jax.experimental.pallas.ops.gpu.decode_attention's kernel on the cache where it lies: one program per
    (query-head block, key split, row, KV head), each reading its KV head's [split, H] keys strided by K x H. (The
    library's decode_attn_unbatched vmapped over the head axis would transpose the cache to [B, K, S, H] first: its
    reshape of the keys into splits moves the vmapped axis to the front.)"""
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import triton as plgpu
    from jax.experimental.pallas.ops.gpu.decode_attention import attn_forward_kernel

    B, N, H = q.shape
    _, S, K, _ = k.shape
    G, block_h = N // K, 16
    splits = max(d for d in range(1, 17) if S // block % d == 0)  # key splits run in parallel, up to 16
    split = S // splits
    kernel = functools.partial(attn_forward_kernel, sm_scale=1.0 / float(H) ** 0.5, block_k=block, block_h=block_h,
                               num_heads=G)  # reads program ids 0 and 1: the query-head block and the key split
    kv_spec = pl.BlockSpec((None, split, None, H), lambda i, j, b, h: (b, j, h, 0))  # [split, H] of [B, S, K, H]
    o, l, m = pl.pallas_call(
        kernel, grid=(pl.cdiv(G, block_h), splits, B, K),
        in_specs=[pl.BlockSpec((None, None, block_h, H), lambda i, j, b, h: (b, h, i, 0)), kv_spec, kv_spec, None,
                  pl.BlockSpec((None,), lambda i, j, b, h: (b,))],
        out_specs=[pl.BlockSpec((None, None, None, block_h, H), lambda i, j, b, h: (b, h, j, i, 0)),
                   *[pl.BlockSpec((None, None, None, block_h), lambda i, j, b, h: (b, h, j, i))] * 2],
        out_shape=[jax.ShapeDtypeStruct((B, K, splits, G, H), jnp.float32),  # per split: unnormalised outputs,
                   *[jax.ShapeDtypeStruct((B, K, splits, G), jnp.float32)] * 2],  # softmax sums and maxima
        compiler_params=plgpu.CompilerParams(num_warps=4, num_stages=2), interpret=interpret,
        name="decode_attention",
    )(q.reshape(B, K, G, H), k, v, None, kv_lengths.astype(jnp.int32))
    m_all = jax.lax.optimization_barrier(m.max(axis=2))  # [B, K, G]; the library's barrier against NaNs under jit
    correction = jnp.exp(m - m_all[:, :, None])  # [B, K, splits, G]
    total = jnp.sum(l * correction, axis=2)  # [B, K, G]
    out = jnp.sum(o * correction[..., None], axis=2) / (total[..., None] + jnp.finfo(jnp.float32).eps)
    return out.reshape(B, N, H).astype(q.dtype)  # f32 -> the model's dtype (a bf16 layer scan needs bf16)


def _pallas_tpu(q, k, v, kv_lengths, *, interpret):
    from jax.experimental.pallas import tpu as pltpu
    from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention

    B, N, H = q.shape
    _, S, K, _ = k.shape
    if not tpu_kernel_fits(H):
        raise ValueError(f"decode attention 'pallas_tpu' needs head_dim a multiple of {TPU_LANES}, not {H} "
                         "(use 'blockwise')")
    page = tpu_page(S)
    own = jnp.eye(K, dtype=bool)[:, None, :, None]  # [K, 1, K, 1]: KV head j's dims among the K*H side by side
    q_scaled = (q.astype(jnp.float32) / jnp.sqrt(jnp.float32(H))).reshape(B, K, N // K, 1, H)  # [B, K, G, 1, H]
    q_wide = jnp.where(own, q_scaled, 0.0).reshape(B, N, K * H)  # zero outside its own head's dims
    k_pages, v_pages = (x.reshape(1, B * S // page, page, K * H) for x in (k, v))  # the cache's own layout
    page_table = jnp.arange(B * S // page, dtype=jnp.int32).reshape(B, S // page)  # row -> its pages
    with pltpu.force_tpu_interpret_mode() if interpret else contextlib.nullcontext():
        out = paged_attention(q_wide, k_pages, v_pages, kv_lengths.astype(jnp.int32), page_table,
                              pages_per_compute_block=1)  # [B, N, K*H] f32
    out = jnp.where(own, out.reshape(B, K, N // K, K, H), 0.0).sum(axis=3)  # [B, K, G, H]: its own head's dims
    return out.reshape(B, N, H).astype(q.dtype)
