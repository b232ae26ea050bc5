"""The engine's TPU decode attention ("pallas_tpu": jax.experimental.pallas.ops.tpu's paged_attention over
the slot cache as pages) against the pure-JAX loop, run on CPU by Pallas' TPU interpreter, and lowered for
`tpu`. The engine's decode segment with it, lowered for the TPU presets' meshes: tests/test_lowering.py;
compiled by libtpu for a v5e slice: tests/test_tpu_compile.py."""


import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax import defaults, plan
from rlve_jax.models import decode_attention
from rlve_jax.models.policy import model_config_of
from rlve_jax.runtime import sharding


def inputs(B: int, N: int, K: int, S: int, H: int, dtype) -> tuple[jax.Array, jax.Array, jax.Array]:
    q, k, v = (jax.random.normal(jax.random.key(i), shape).astype(dtype) for i, shape in
               enumerate([(B, N, H), (B, S, K, H), (B, S, K, H)]))
    return q, k, v


def test_f32_equals_blockwise_over_ragged_rows_with_grouped_heads_on_each_devices_shard():
    q, k, v = inputs(B=4, N=8, K=2, S=64, H=128, dtype=jnp.float32)  # 4 query heads per KV head
    lengths = jnp.array([1, 64, 17, 40], jnp.int32)
    mesh = sharding.make_mesh(data=2, fsdp=2, tensor=2)  # rows over 4 devices, KV heads over 2 (the engine's cache)
    rows, cache = (NamedSharding(mesh, P(("data", "fsdp"), *heads)) for heads in ((), (None, "tensor")))

    @jax.jit
    def kernel(q, k, v, lengths):
        with decode_attention.traced_under(mesh):
            return decode_attention.decode_attention(q, k, v, lengths, impl="pallas_tpu_interpret")

    args = jax.device_put((q, k, v, lengths), (rows, cache, cache, rows))
    assert "sdy.manual_computation" in kernel.lower(*args).as_text()  # the kernel runs per shard
    got = kernel(*args)
    # The kernel rounds K/V pages to bf16 and computes in f32 (a TPU's default f32 matmul precision).
    rounded = [x.astype(jnp.bfloat16).astype(jnp.float32) for x in (k, v)]
    np.testing.assert_allclose(got, decode_attention.decode_attention(q, *rounded, lengths, impl="blockwise"),
                               atol=1e-6)
    np.testing.assert_allclose(got, decode_attention.decode_attention(q, k, v, lengths, impl="blockwise"),
                               atol=2e-2)


def test_bf16_equals_blockwise_over_several_pages_and_skips_pages_past_each_length():
    S = 528  # 3 pages of 176 keys: rows span 1 to 3 pages
    assert decode_attention.tpu_page(S) == 176
    q, k, v = inputs(B=2, N=4, K=2, S=S, H=128, dtype=jnp.bfloat16)
    lengths = jnp.array([500, 17], jnp.int32)
    expected = decode_attention.decode_attention(q, k, v, lengths, impl="blockwise")
    garbage = k.at[1, 176:].set(jnp.nan)  # row 1's second and third pages are never read
    got = decode_attention.decode_attention(q, garbage, v, lengths, impl="pallas_tpu_interpret")
    assert got.dtype == jnp.bfloat16
    np.testing.assert_allclose(got.astype(jnp.float32), expected.astype(jnp.float32), atol=1e-2)


def test_head_dims_the_kernel_cannot_take_are_a_clear_error_and_not_the_tpu_default(monkeypatch):
    q, k, v = inputs(B=1, N=2, K=1, S=16, H=64, dtype=jnp.float32)
    with pytest.raises(ValueError, match="'pallas_tpu' needs head_dim a multiple of 128, not 64"):
        decode_attention.decode_attention(q, k, v, jnp.array([3]), impl="pallas_tpu")
    assert decode_attention.default_impl(128) == "blockwise"  # on CPU
    monkeypatch.setattr(jax, "default_backend", lambda: "tpu")
    assert (decode_attention.default_impl(128), decode_attention.default_impl(64)) == ("pallas_tpu", "blockwise")


@pytest.mark.parametrize("slot_length, page", [(48, 48), (528, 176), (1040, 208), (2048, 512), (26_624, 512)])
def test_a_page_is_the_largest_multiple_of_16_up_to_512_keys_that_divides_the_slot(slot_length, page):
    assert decode_attention.tpu_page(slot_length) == page


def test_lowers_for_tpu_as_one_mosaic_kernel_call():
    q, k, v = inputs(B=2, N=4, K=2, S=256, H=128, dtype=jnp.bfloat16)
    fn = jax.jit(lambda q, k, v, n: decode_attention.decode_attention(q, k, v, n, impl="pallas_tpu"))
    exported = jax.export.export(fn, platforms=["tpu"], disabled_checks=[
        jax.export.DisabledSafetyCheck.custom_call("tpu_custom_call")])(q, k, v, jnp.array([5, 256], jnp.int32))
    module = exported.mlir_module()
    assert module.count("stablehlo.custom_call @tpu_custom_call") == 1
    assert exported.out_avals[0].shape == (2, 4, 128) and exported.out_avals[0].dtype == jnp.bfloat16


def test_the_config_key_names_the_engines_decode_attention():
    config = defaults.base_config()
    config.model.preset = "qwen3-0.6b"  # head_dim 128
    shape = lambda: model_config_of(defaults.settings(config).model, None)  # noqa: E731
    assert shape().decode_attention is None  # "auto": the backend's default at trace
    config.model.decode_attention = "pallas_tpu"
    defaults.validate(config)
    assert shape().decode_attention == "pallas_tpu"
    config.model.decode_attention = "paged"
    with pytest.raises(defaults.ConfigError, match="model.decode_attention='paged' must be one of 'auto', "):
        defaults.validate(config)


def test_an_explicit_tpu_kernel_that_the_models_head_dim_does_not_fit_fails_at_start_up():
    """The model's shape (what the builder and the planner construct first) checks it, not the first decode trace."""
    config = defaults.base_config()
    config.model.preset, config.model.decode_attention = "micro", "pallas_tpu"  # head_dim 32
    defaults.validate(config)
    shape = lambda: model_config_of(defaults.settings(config).model, 512)  # noqa: E731
    error = r"model.decode_attention='pallas_tpu' needs head_dim a multiple of 128, and this model's is 32"
    with pytest.raises(ValueError, match=error):
        shape()
    with pytest.raises(ValueError, match=error):
        plan.model_config_for(config)
    config.model.preset = "qwen3-0.6b"  # head_dim 128
    assert shape().decode_attention == "pallas_tpu"
    config.model.preset, config.model.decode_attention = "micro", "auto"
    assert shape().decode_attention is None
