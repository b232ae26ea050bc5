"""Full-sequence attention (training, prefill): one signature, several implementations chosen by name.

    reference   jax.nn.dot_product_attention's XLA path; materialises [B, N, T, S] scores
    blockwise   pure JAX, any backend: online softmax over key blocks (FlashAttention-2's recurrence)
                with its own blockwise backward (custom VJP), so forward and backward hold
                O(T * block) per head, never [T, S]; causal blocks above the diagonal and key blocks
                past the batch's longest row are skipped
    cudnn       jax.nn.dot_product_attention(implementation="cudnn"), bf16 (GPU)
    pallas_tpu  the splash-attention Pallas kernel (TPU; `interpret=True` runs its code on CPU)
    auto        cudnn on GPU, pallas_tpu on TPU, blockwise elsewhere

Shapes: B batch, T queries, S keys, N query heads, K KV heads (N = K * G, query head n uses KV head
n // G as jax.nn.dot_product_attention and HF's repeat_kv do), H head dim. Keys at index >=
kv_lengths[b] are masked; with `causal`, query t sees keys <= t (queries and keys both start at
position 0). Rows whose keys are all masked return 0 (blockwise) or what their kernel returns: such
rows are padding, which no loss reads.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp

IMPLEMENTATIONS = ("auto", "reference", "blockwise", "cudnn", "pallas_tpu")
ALIASES = {None: "reference", "xla": "reference"}  # jax.nn.dot_product_attention's own spellings
DEFAULT_BLOCK = 512
_NEG = -1e30  # masked score; finite so that exp(_NEG - m) is 0, never NaN
BATCH_AXES = ("data", "fsdp")  # rlve_jax.runtime.sharding.BATCH (not imported: sharding imports the model's callers)


def resolve(impl: str | None, backend: str | None = None) -> str:
    """The implementation `impl` names on `backend` (default: JAX's default backend)."""
    impl = ALIASES.get(impl, impl)
    if impl not in IMPLEMENTATIONS:
        raise ValueError(f"unknown attention implementation {impl!r}; choose one of {IMPLEMENTATIONS}")
    if impl == "auto":
        backend = backend or jax.default_backend()
        return {"gpu": "cudnn", "cuda": "cudnn", "tpu": "pallas_tpu"}.get(backend, "blockwise")
    return impl


def attend(q: jax.Array, k: jax.Array, v: jax.Array, kv_lengths: jax.Array | None, *, causal: bool = True,
           impl: str | None = "auto", block: int = DEFAULT_BLOCK, interpret: bool = False) -> jax.Array:
    """softmax(q k^T / sqrt(H) + mask) v. q [B, T, N, H], k and v [B, S, K, H], kv_lengths [B] or None
    (all S keys valid) -> [B, T, N, H] in q's dtype. `interpret` runs the Pallas kernel's code on CPU."""
    impl = resolve(impl)
    if causal and q.shape[1] != k.shape[1]:
        raise ValueError(f"causal attention needs as many queries as keys, got T={q.shape[1]}, S={k.shape[1]}")
    if q.shape[2] % k.shape[2]:
        raise ValueError(f"{q.shape[2]} query heads are not a multiple of {k.shape[2]} KV heads")
    if impl == "reference":
        return jax.nn.dot_product_attention(q, k, v, is_causal=causal, key_value_seq_lengths=kv_lengths)
    lengths = (jnp.full((q.shape[0],), k.shape[1], jnp.int32) if kv_lengths is None
               else kv_lengths.astype(jnp.int32))  # [B]
    if impl == "blockwise":
        return blockwise(q, k, v, lengths, causal, block, block)
    if impl == "cudnn":
        if jax.default_backend() not in ("gpu", "cuda"):
            raise ValueError(f"attention_impl='cudnn' needs a GPU backend, not {jax.default_backend()!r}")
        low = lambda x: x.astype(jnp.bfloat16) if x.dtype not in (jnp.bfloat16, jnp.float16) else x  # noqa: E731
        out = jax.nn.dot_product_attention(low(q), low(k), low(v), is_causal=causal, key_value_seq_lengths=lengths,
                                           implementation="cudnn")
        return out.astype(q.dtype)
    if impl == "pallas_tpu":
        return per_shard(functools.partial(splash, causal=causal, block=block, interpret=interpret), q, k, v, lengths,
                         head_axis=2)
    raise AssertionError(impl)


def per_shard(kernel, q: jax.Array, k: jax.Array, v: jax.Array, lengths: jax.Array, *, head_axis: int,
              kv_head_axis: int | None = None) -> jax.Array:
    """Run a Pallas kernel on each device's shard (rows over the data axes, heads at `head_axis` of q and
    `kv_head_axis` of k and v (default: the same) over "tensor") when traced under `jax.set_mesh`: the SPMD
    partitioner cannot split a kernel call itself (Mosaic refuses, and XLA would gather a Triton call's operands).
    Without a traced mesh, the kernel on the whole arrays."""
    mesh = jax.sharding.get_abstract_mesh()
    if mesh.empty:
        return kernel(q, k, v, lengths)
    kv_head_axis = head_axis if kv_head_axis is None else kv_head_axis
    batch = tuple(a for a in BATCH_AXES if a in mesh.axis_names)
    batch = batch if batch and q.shape[0] % math.prod(mesh.shape[a] for a in batch) == 0 else None
    heads = "tensor" if "tensor" in mesh.axis_names and k.shape[kv_head_axis] % mesh.shape["tensor"] == 0 else None
    q_spec, kv_spec = (jax.sharding.PartitionSpec(batch, *[None] * (axis - 1), heads)
                       for axis in (head_axis, kv_head_axis))
    return jax.shard_map(kernel, mesh=mesh, in_specs=(q_spec, kv_spec, kv_spec, jax.sharding.PartitionSpec(batch)),
                         out_specs=q_spec, check_vma=False)(q, k, v, lengths)


def batch_sharded(x: jax.Array) -> jax.Array:
    """x [B, ...] split over the mesh's data axes, when traced under `jax.set_mesh` with the training mesh
    (a no-op otherwise). The embedding lookup would otherwise inherit the table's model-dim sharding, and
    with it the SPMD partitioner gathers every activation of the batch onto every device instead of
    gathering each layer's weights (FSDP)."""
    mesh = jax.sharding.get_abstract_mesh()
    axes = tuple(a for a in BATCH_AXES if a in mesh.axis_names)
    if not axes or x.shape[0] % math.prod(mesh.shape[a] for a in axes):
        return x
    return jax.lax.with_sharding_constraint(x, jax.sharding.PartitionSpec(axes))


# ---------------------------------------------------------------------------
# Blockwise attention with a blockwise backward


def _pad_to(x: jax.Array, multiple: int, axis: int = 1) -> jax.Array:
    pad = -x.shape[axis] % multiple
    return x if not pad else jnp.pad(x, [(0, pad if a == axis else 0) for a in range(x.ndim)])


def blockwise(q: jax.Array, k: jax.Array, v: jax.Array, lengths: jax.Array, causal: bool,
              block_q: int = DEFAULT_BLOCK, block_k: int = DEFAULT_BLOCK) -> jax.Array:
    """Blockwise attention; sequences are padded to whole blocks (padded keys lie past every length)."""
    B, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    bq, bk = min(block_q, T), min(block_k, S)
    q5 = _pad_to(q, bq).reshape(B, -1, K, N // K, H)  # [B, Tp, K, G, H]
    out = _flash(q5, _pad_to(k, bk), _pad_to(v, bk), jnp.minimum(lengths, S), causal, bq, bk)
    return out[:, :T].reshape(B, T, N, H)


def _mask(lengths: jax.Array, q_start, k_start, bq: int, bk: int, causal: bool) -> jax.Array:
    """Valid (query, key) pairs of one tile: [B, 1, 1, bq, bk] bool."""
    key = k_start + jnp.arange(bk)  # [bk]
    valid = (key[None, :] < lengths[:, None])[:, None, None, None, :]  # [B, 1, 1, 1, bk]
    if causal:
        query = q_start + jnp.arange(bq)  # [bq]
        valid = valid & (key[None, :] <= query[:, None])  # [B, 1, 1, bq, bk]
    return valid


def _key_blocks(lengths: jax.Array, n_k: int, bk: int) -> jax.Array:
    """Key blocks that hold any valid key of any row (the rest are skipped)."""
    return jnp.minimum(n_k, (jnp.max(lengths) + bk - 1) // bk)


def _key_block_end(i, bq: int, bk: int, n_k, causal: bool):
    """One past the last key block query block i attends to."""
    return jnp.minimum(n_k, ((i + 1) * bq + bk - 1) // bk) if causal else n_k


def _forward(q5, k, v, lengths, causal, bq, bk):
    """-> out [B, Tp, K, G, H] (q's dtype) and the log-sum-exp lse [B, K, G, Tp] (f32)."""
    B, Tp, K, G, H = q5.shape
    n_q, n_k = Tp // bq, k.shape[1] // bk
    scale = 1.0 / math.sqrt(H)
    k_end = _key_blocks(lengths, n_k, bk)

    def query_block(i):
        q_i = jax.lax.dynamic_slice_in_dim(q5, i * bq, bq, axis=1) * jnp.asarray(scale, q5.dtype)  # [B, bq, K, G, H]

        def step(j, carry):
            m, l, acc = carry  # [B, K, G, bq], [B, K, G, bq], [B, K, G, bq, H]
            k_j = jax.lax.dynamic_slice_in_dim(k, j * bk, bk, axis=1)  # [B, bk, K, H]
            v_j = jax.lax.dynamic_slice_in_dim(v, j * bk, bk, axis=1)
            s = jnp.einsum("BqKGH,BkKH->BKGqk", q_i, k_j, preferred_element_type=jnp.float32)  # [B, K, G, bq, bk]
            valid = _mask(lengths, i * bq, j * bk, bq, bk, causal)
            s = jnp.where(valid, s, _NEG)
            m_new = jnp.maximum(m, jnp.max(s, axis=-1))
            p = jnp.where(valid, jnp.exp(s - m_new[..., None]), 0.0)  # [B, K, G, bq, bk]
            correction = jnp.exp(m - m_new)
            l = l * correction + jnp.sum(p, axis=-1)
            pv = jnp.einsum("BKGqk,BkKH->BKGqH", p.astype(v.dtype), v_j, preferred_element_type=jnp.float32)
            return m_new, l, acc * correction[..., None] + pv

        init = (jnp.full((B, K, G, bq), _NEG, jnp.float32), jnp.zeros((B, K, G, bq), jnp.float32),
                jnp.zeros((B, K, G, bq, H), jnp.float32))
        m, l, acc = jax.lax.fori_loop(0, jnp.minimum(k_end, _key_block_end(i, bq, bk, n_k, causal)), step, init)
        safe = jnp.where(l > 0, l, 1.0)
        out = (acc / safe[..., None]).transpose(0, 3, 1, 2, 4).astype(q5.dtype)  # [B, bq, K, G, H]
        return out, m + jnp.log(safe)

    out, lse = jax.lax.map(query_block, jnp.arange(n_q))  # [n_q, B, bq, K, G, H], [n_q, B, K, G, bq]
    out = out.transpose(1, 0, 2, 3, 4, 5).reshape(B, Tp, K, G, H)
    lse = lse.transpose(1, 2, 3, 0, 4).reshape(B, K, G, Tp)
    return out, lse


@functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5, 6))
def _flash(q5, k, v, lengths, causal, bq, bk):
    return _forward(q5, k, v, lengths, causal, bq, bk)[0]


def _flash_fwd(q5, k, v, lengths, causal, bq, bk):
    out, lse = _forward(q5, k, v, lengths, causal, bq, bk)
    return out, (q5, k, v, lengths, out, lse)


def _flash_bwd(causal, bq, bk, residuals, d_out):
    """FlashAttention-2's backward: per key block, the query blocks at or below the diagonal recompute
    their tile of probabilities from the saved log-sum-exp; dK, dV accumulate per key block, dQ in one
    [B, T, K, G, H] buffer. Nothing [T, S]-sized exists."""
    q5, k, v, lengths, out, lse = residuals
    B, Tp, K, G, H = q5.shape
    n_q, n_k = Tp // bq, k.shape[1] // bk
    scale = 1.0 / math.sqrt(H)
    delta = jnp.einsum("BTKGH,BTKGH->BKGT", d_out.astype(jnp.float32), out.astype(jnp.float32))  # [B, K, G, Tp]

    def key_block(j, grads):
        dq, dk, dv = grads  # [B, Tp, K, G, H], [B, S, K, H], [B, S, K, H] f32
        k_j = jax.lax.dynamic_slice_in_dim(k, j * bk, bk, axis=1)  # [B, bk, K, H]
        v_j = jax.lax.dynamic_slice_in_dim(v, j * bk, bk, axis=1)

        def query_block(i, carry):
            dq, dk_j, dv_j = carry
            q_i = jax.lax.dynamic_slice_in_dim(q5, i * bq, bq, axis=1) * jnp.asarray(scale, q5.dtype)
            do_i = jax.lax.dynamic_slice_in_dim(d_out, i * bq, bq, axis=1)  # [B, bq, K, G, H]
            lse_i = jax.lax.dynamic_slice_in_dim(lse, i * bq, bq, axis=3)  # [B, K, G, bq]
            delta_i = jax.lax.dynamic_slice_in_dim(delta, i * bq, bq, axis=3)
            s = jnp.einsum("BqKGH,BkKH->BKGqk", q_i, k_j, preferred_element_type=jnp.float32)
            valid = _mask(lengths, i * bq, j * bk, bq, bk, causal)
            p = jnp.where(valid, jnp.exp(s - lse_i[..., None]), 0.0)  # [B, K, G, bq, bk]
            dv_j = dv_j + jnp.einsum("BKGqk,BqKGH->BkKH", p.astype(d_out.dtype), do_i,
                                     preferred_element_type=jnp.float32)
            dp = jnp.einsum("BqKGH,BkKH->BKGqk", do_i, v_j, preferred_element_type=jnp.float32)
            ds = p * (dp - delta_i[..., None])  # [B, K, G, bq, bk]
            dk_j = dk_j + jnp.einsum("BKGqk,BqKGH->BkKH", ds.astype(q_i.dtype), q_i,
                                     preferred_element_type=jnp.float32)
            dq_i = jnp.einsum("BKGqk,BkKH->BqKGH", ds.astype(k_j.dtype), k_j, preferred_element_type=jnp.float32)
            dq = jax.lax.dynamic_update_slice_in_dim(
                dq, jax.lax.dynamic_slice_in_dim(dq, i * bq, bq, axis=1) + dq_i, i * bq, axis=1)
            return dq, dk_j, dv_j

        first = (j * bk) // bq if causal else 0  # query blocks above it see none of this key block
        zeros = jnp.zeros((B, bk, K, H), jnp.float32)
        dq, dk_j, dv_j = jax.lax.fori_loop(first, n_q, query_block, (dq, zeros, zeros))
        dk = jax.lax.dynamic_update_slice_in_dim(dk, dk_j, j * bk, axis=1)
        dv = jax.lax.dynamic_update_slice_in_dim(dv, dv_j, j * bk, axis=1)
        return dq, dk, dv

    init = (jnp.zeros(q5.shape, jnp.float32), jnp.zeros(k.shape, jnp.float32), jnp.zeros(v.shape, jnp.float32))
    dq, dk, dv = jax.lax.fori_loop(0, _key_blocks(lengths, n_k, bk), key_block, init)
    return (dq * scale).astype(q5.dtype), dk.astype(k.dtype), dv.astype(v.dtype), None


_flash.defvjp(_flash_fwd, _flash_bwd)


# ---------------------------------------------------------------------------
# TPU: the splash-attention Pallas kernel


def splash(q: jax.Array, k: jax.Array, v: jax.Array, lengths: jax.Array, causal: bool, block: int = DEFAULT_BLOCK,
           interpret: bool = False) -> jax.Array:
    """Splash attention, one kernel per batch row (vmap). Padding is a segment of its own (id 0): valid
    queries see only valid keys; padded queries see padded keys, so no row is empty. Sequences are
    padded to whole blocks, which are multiples of 128 (the kernel's lane width)."""
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as kernel_lib
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as mask_lib

    B, T, N, H = q.shape
    S = k.shape[1]
    b = min(block, -(-max(T, S) // 128) * 128)
    qp, kp, vp = _pad_to(q, b), _pad_to(k, b), _pad_to(v, b)
    Tp, Sp = qp.shape[1], kp.shape[1]
    head_mask = mask_lib.CausalMask((Tp, Sp)) if causal else mask_lib.FullMask((Tp, Sp))
    sizes = kernel_lib.BlockSizes(block_q=b, block_kv=b, block_kv_compute=b, block_q_dkv=b, block_kv_dkv=b,
                                  block_kv_dkv_compute=b, block_q_dq=b, block_kv_dq=b)
    kernel = kernel_lib.make_splash_mha(mask_lib.MultiHeadMask([head_mask] * N), block_sizes=sizes, head_shards=1,
                                        q_seq_shards=1, interpret=interpret)
    segments = kernel_lib.SegmentIds(q=(jnp.arange(Tp)[None] < lengths[:, None]).astype(jnp.int32),  # [B, Tp]
                                     kv=(jnp.arange(Sp)[None] < lengths[:, None]).astype(jnp.int32))  # [B, Sp]
    heads_first = lambda x: x.transpose(0, 2, 1, 3)  # noqa: E731  [B, L, heads, H] -> [B, heads, L, H]
    out = jax.vmap(kernel)(heads_first(qp * jnp.asarray(1.0 / math.sqrt(H), q.dtype)), heads_first(kp),
                           heads_first(vp), segment_ids=segments)  # [B, N, Tp, H]
    return heads_first(out)[:, :T].astype(q.dtype)
