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
- "pallas_tpu" (the TPU default where head_dim is a multiple of 128 and each chip holds one KV head of the
  cache, see default_impl): jax.experimental.pallas.ops.tpu's paged_attention kernel. The slot cache is
  already a page table: each (row, KV head) is one sequence of S // P contiguous pages with one KV head
  (a reshape, no copy), and the kernel loops over a row's pages (of up to 512 keys, one DMA each) only
  up to its own length. The kernel needs head_dim % 128 == 0 (its softmax statistics take the query's
  block shape) and computes in f32 from K/V rounded to bf16 (what a TPU's default-precision f32 matmul
  does too). "pallas_tpu_interpret" runs the same kernel in Pallas' TPU interpreter on CPU (tests).
The kernels run on each device's shard (rows over the data axes, KV heads over "tensor" where they divide)
when traced under a mesh (`traced_under(mesh)`, as the engine's decode segment is): the SPMD partitioner
cannot split a Mosaic kernel call (it refuses) nor a Triton one (it would gather the cache).
"""

from __future__ import annotations

import contextlib
import functools
import math

import jax
import jax.numpy as jnp

IMPLS = ("blockwise", "pallas_gpu", "pallas_gpu_interpret", "pallas_tpu", "pallas_tpu_interpret")
TPU_LANES = 128  # the paged kernel's head_dim must be a multiple of this
BATCH_AXES = ("data", "fsdp")  # rlve_jax.runtime.sharding.BATCH (not imported: sharding imports the model's callers)
TPU_PAGE_KEYS = 512  # the paged kernel's keys per page and compute block, at most


def default_impl(head_dim: int, kv_heads_per_device: int = 1, backend: str | None = None) -> str:
    """The GPU kernel on GPU; the TPU kernel on TPU where head_dim fits it and each device holds one KV head
    of the cache; the pure-JAX loop elsewhere (backend: JAX's default backend, or the platform compiled for).
    With several KV heads per TPU chip, XLA stores the cache in the decode loop tiled over (KV head, head
    dim) for its one-position writes, and the kernel's row-major pages then cost a copy of each layer's
    cache per step (libtpu's compiled decode segment for the tpu_v5e preset, sampler_tensor=4)."""
    backend = backend or jax.default_backend()
    if backend == "gpu":
        return "pallas_gpu"
    fits = backend == "tpu" and tpu_kernel_fits(head_dim) and kv_heads_per_device == 1
    return "pallas_tpu" if fits else "blockwise"


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
    impl = impl or default_impl(q.shape[-1], k.shape[1] // _tensor_split(k.shape[1]))
    block = key_block(k.shape[2])
    if impl == "blockwise":
        return _blockwise(q, k, v, kv_lengths, block)
    if impl in ("pallas_gpu", "pallas_gpu_interpret"):
        kernel = functools.partial(_pallas_gpu, block=block, interpret=impl == "pallas_gpu_interpret")
        return _per_shard(kernel, q, k, v, kv_lengths)
    if impl in ("pallas_tpu", "pallas_tpu_interpret"):
        kernel = functools.partial(_pallas_tpu, interpret=impl == "pallas_tpu_interpret")
        return _per_shard(kernel, q, k, v, kv_lengths)
    raise ValueError(f"unknown decode attention {impl!r}; known: {IMPLS}")


def _tensor_split(kv_heads: int) -> int:
    """Devices the KV heads are split over under the traced mesh ("tensor", where it divides them)."""
    mesh = jax.sharding.get_abstract_mesh()
    tensor = 1 if mesh.empty or "tensor" not in mesh.axis_names else mesh.shape["tensor"]
    return tensor if kv_heads % tensor == 0 else 1


def _per_shard(kernel, q: jax.Array, k: jax.Array, v: jax.Array, kv_lengths: jax.Array) -> jax.Array:
    """kernel(q, k, v, kv_lengths) on each device's rows and KV heads under the traced mesh, if any."""
    mesh = jax.sharding.get_abstract_mesh()
    if mesh.empty:
        return kernel(q, k, v, kv_lengths)
    batch = tuple(a for a in BATCH_AXES if a in mesh.axis_names)
    batch = batch if batch and q.shape[0] % math.prod(mesh.shape[a] for a in batch) == 0 else None
    heads = "tensor" if _tensor_split(k.shape[1]) > 1 else None
    P = jax.sharding.PartitionSpec
    return jax.shard_map(kernel, mesh=mesh, in_specs=(P(batch, heads), P(batch, heads), P(batch, heads), P(batch)),
                         out_specs=P(batch, heads), check_vma=False)(q, k, v, kv_lengths)


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
    pages = B * K * S // page
    q_scaled = (q.astype(jnp.float32) / jnp.sqrt(jnp.float32(H))).reshape(B * K, N // K, H)  # [B*K, G, H]
    k_pages, v_pages = (x.reshape(1, pages, page, H) for x in (k, v))  # one KV head: [1, B*K*S/P, P, H]
    page_table = jnp.arange(pages, dtype=jnp.int32).reshape(B * K, S // page)  # (row, head) -> its pages
    lengths = jnp.repeat(kv_lengths.astype(jnp.int32), K)  # [B*K]
    with pltpu.force_tpu_interpret_mode() if interpret else contextlib.nullcontext():
        out = paged_attention(q_scaled, k_pages, v_pages, lengths, page_table, pages_per_compute_block=1)  # f32
    return out.reshape(B, N, H).astype(q.dtype)
