"""GPU parity checks of the kernels CPU tests can only reach through Pallas interpret mode or not at all.

    python experiments/gpu_parity.py          # on a GPU machine (experiments/gpu_check.sh runs it)

Prints one table: each GPU kernel against the reference path measured in the same run (max |difference|
and the tolerance it is held to), and exits 1 if any check fails:
  training attention, cuDNN flash vs the XLA reference (bf16, causal, padded rows): outputs and gradients;
  training attention, blockwise vs the XLA reference on the GPU (f32);
  decode attention, the Pallas GPU kernel vs the blockwise pure-JAX path (f32, ragged live lengths).
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, __file__.rsplit("/experiments/", 1)[0])

from rlve_jax.models import attention, decode_attention  # noqa: E402


def max_diff(a, b) -> float:
    return float(jnp.max(jnp.abs(a.astype(jnp.float32) - b.astype(jnp.float32))))


def training_case(impl: str, dtype, B=2, T=1024, N=8, K=2, H=128):
    keys = jax.random.split(jax.random.key(0), 4)
    q, k, v = (jax.random.normal(keys[i], shape, dtype) for i, shape in
               enumerate([(B, T, N, H), (B, T, K, H), (B, T, K, H)]))
    lengths = jnp.array([T, T // 2 + 7], jnp.int32)  # one padded row
    cot = jax.random.normal(keys[3], (B, T, N, H), jnp.float32)

    def loss(impl, q, k, v):
        out = attention.attend(q, k, v, lengths, causal=True, impl=impl)  # [B, T, N, H]
        valid = (jnp.arange(T)[None, :] < lengths[:, None])[..., None, None]
        return jnp.sum(jnp.where(valid, out.astype(jnp.float32) * cot, 0.0)), out

    (_, ref), ref_grads = jax.value_and_grad(lambda *a: loss("reference", *a), argnums=(0, 1, 2), has_aux=True)(q, k, v)
    (_, out), grads = jax.value_and_grad(lambda *a: loss(impl, *a), argnums=(0, 1, 2), has_aux=True)(q, k, v)
    valid = (jnp.arange(T)[None, :] < lengths[:, None])[..., None, None]
    out_diff = max_diff(jnp.where(valid, out, 0), jnp.where(valid, ref, 0))
    grad_diff = max(max_diff(g, r) / (float(jnp.max(jnp.abs(r.astype(jnp.float32)))) + 1e-6)
                    for g, r in zip(grads, ref_grads))
    return out_diff, grad_diff


def decode_case(B=16, N=12, K=2, S=4096, H=128):
    keys = jax.random.split(jax.random.key(1), 3)
    q = jax.random.normal(keys[0], (B, N, H), jnp.float32)
    k = jax.random.normal(keys[1], (B, S, K, H), jnp.float32)
    v = jax.random.normal(keys[2], (B, S, K, H), jnp.float32)
    lengths = jnp.asarray(np.random.default_rng(0).integers(1, S + 1, B), jnp.int32)
    ref = decode_attention.decode_attention(q, k, v, lengths, impl="blockwise")
    return max_diff(decode_attention.decode_attention(q, k, v, lengths, impl="pallas_gpu"), ref)


def main() -> None:
    if jax.default_backend() != "gpu":
        raise SystemExit(f"error: needs a GPU backend, found {jax.default_backend()!r}")
    rows = []
    out, grad = training_case("cudnn", jnp.bfloat16)
    rows += [("attention cudnn vs reference (bf16) outputs", out, 3e-2),
             ("attention cudnn vs reference (bf16) grads, relative", grad, 5e-2)]
    out, grad = training_case("blockwise", jnp.float32)
    rows += [("attention blockwise vs reference (f32) outputs", out, 1e-4),
             ("attention blockwise vs reference (f32) grads, relative", grad, 1e-4)]
    rows.append(("decode pallas_gpu vs blockwise (f32)", decode_case(), 1e-4))
    failed = 0
    print(f"{'check':56s} {'max |diff|':>12s} {'tolerance':>10s}  result")
    for name, diff, tol in rows:
        ok = diff <= tol
        failed += not ok
        print(f"{name:56s} {diff:12.3e} {tol:10.1e}  {'ok' if ok else 'FAIL'}")
    print(f"device: {jax.devices()[0].device_kind}; {len(rows) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
