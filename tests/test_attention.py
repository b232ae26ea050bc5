"""Attention implementations against the XLA reference: values and gradients, causal and padded; the
blockwise backward's memory is linear in the length. (Through the model, test_model.py's comparisons
with transformers run the CPU default, blockwise.)"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from rlve_jax.models import attention

B, T, N, K, H = 3, 40, 4, 2, 8
LENGTHS = (40, 17, 0)  # a full row, a padded one, an empty padding row


def _inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    q, k, v, w = (jnp.asarray(rng.normal(size=s), jnp.float32) for s in
                  ((B, T, N, H), (B, T, K, H), (B, T, K, H), (B, T, N, H)))
    valid = np.arange(T)[None, :] < np.asarray(LENGTHS)[:, None]  # [B, T] the queries a loss reads
    return q, k, v, w * valid[:, :, None, None], valid


def _value_and_grads(impl: str, causal: bool, **kw):
    q, k, v, w, _ = _inputs()
    lengths = jnp.asarray(LENGTHS, jnp.int32)

    def loss(q, k, v):
        out = attention.attend(q, k, v, lengths, causal=causal, impl=impl, **kw)
        return jnp.sum(out * w), out

    (_, out), grads = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2), has_aux=True))(q, k, v)
    return np.asarray(out), [np.asarray(g) for g in grads]


def _assert_matches_reference(impl: str, causal: bool, **kw):
    valid = _inputs()[-1]
    ref_out, ref_grads = _value_and_grads("reference", causal)
    out, grads = _value_and_grads(impl, causal, **kw)
    assert np.all(np.isfinite(out)) and all(np.all(np.isfinite(g)) for g in grads)
    assert np.abs(out - ref_out)[valid].max() <= 1e-5
    for name, g, r in zip("qkv", grads, ref_grads):
        assert np.abs(g - r).max() <= 1e-5, name


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("block", [16, 64])  # 16: ragged last block, causal skipping; 64: one block
def test_blockwise_matches_reference(causal, block):
    _assert_matches_reference("blockwise", causal, block=block)


def test_pallas_splash_kernel_in_interpret_mode_matches_reference():
    """The TPU kernel's own code, run by the Pallas interpreter on CPU (sequences padded to 128)."""
    _assert_matches_reference("pallas_tpu", True, interpret=True)


def test_auto_and_bad_names():
    assert attention.resolve("auto", "cpu") == "blockwise"
    assert attention.resolve("auto", "gpu") == "cudnn"
    assert attention.resolve("auto", "tpu") == "pallas_tpu"
    assert attention.resolve(None) == attention.resolve("xla") == "reference"
    with pytest.raises(ValueError, match="unknown attention implementation"):
        attention.resolve("flash")
    if jax.default_backend() == "cpu":
        q, k, v, _, _ = _inputs()
        with pytest.raises(ValueError, match="needs a GPU"):
            attention.attend(q, k, v, None, impl="cudnn")


def _grad_temp_bytes(impl: str, length: int) -> int:
    """Compiled temporaries of d(sum of attention)/d(q, k, v) for one sequence of `length` tokens."""
    shape = lambda heads: jax.ShapeDtypeStruct((1, length, heads, 64), jnp.float32)  # noqa: E731
    grad = jax.grad(lambda q, k, v: jnp.sum(attention.attend(q, k, v, None, impl=impl, block=256)), (0, 1, 2))
    return jax.jit(grad).lower(shape(4), shape(2), shape(2)).compile().memory_analysis().temp_size_in_bytes


def test_blockwise_backward_memory_is_linear_in_length():
    short, long = _grad_temp_bytes("blockwise", 2048), _grad_temp_bytes("blockwise", 8192)
    quadratic = _grad_temp_bytes("reference", 8192)
    print(f"temporaries: blockwise {short / 2**20:.1f} -> {long / 2**20:.1f} MiB, "
          f"reference {quadratic / 2**20:.0f} MiB")
    assert long <= 5 * short  # 4x the length
    assert quadratic >= 4 * 8192 * 8192 * 4  # the reference holds [N, T, T] f32 scores


def test_pallas_kernel_runs_per_shard_under_a_mesh():
    """Under jax.set_mesh (as the trainer's step runs), the kernel runs per device on its batch rows and
    KV heads (shard_map): values and gradients as the reference's."""
    from rlve_jax.runtime import sharding

    q, k, v, w, valid = _inputs()
    q, k, v, w = (jnp.concatenate([x, x[:1]]) for x in (q, k, v, w))  # 4 rows: the fsdp axis splits them
    lengths = jnp.asarray([*LENGTHS, T], jnp.int32)

    def run(impl):
        loss = lambda q, k, v: jnp.sum(attention.attend(q, k, v, lengths, impl=impl, interpret=True) * w)  # noqa
        return jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2)))(q, k, v)

    with jax.set_mesh(sharding.make_mesh(data=1, fsdp=4, tensor=2)):
        value, grads = run("pallas_tpu")
    ref_value, ref_grads = run("reference")
    np.testing.assert_allclose(value, ref_value, rtol=1e-5)
    for g, r in zip(grads, ref_grads):
        assert np.abs(np.asarray(g) - np.asarray(r)).max() <= 1e-5
