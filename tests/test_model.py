"""Decoder numerics against transformers, cached decoding, chunked logprobs, sharded meshes."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from models_for_tests import right_padded_batch, torch_logits
from rlve_jax.models import convert
from rlve_jax.runtime import sharding
from rlve_jax.models.model import PRESETS, ModelConfig, Transformer, token_logprobs

LENGTHS, T = (12, 9, 4), 12


@nnx.jit
def forward(model, tokens, positions, mask):
    return model(tokens, positions, mask)


@pytest.fixture(scope="module", params=["qwen2", "qwen3"])
def pair(request):
    """(HF directory, torch model, our model loaded from it)."""
    directory, torch_model = request.getfixturevalue(f"hf_{request.param}")
    return directory, torch_model, convert.load_hf(directory)


def test_logits_match_transformers_on_right_padded_batch(pair):
    _, torch_model, model = pair
    tokens, positions, mask = right_padded_batch(LENGTHS, T)
    ours = np.asarray(forward(model, tokens, positions, mask))
    ref = torch_logits(torch_model, tokens, mask)
    err = np.abs(ours - ref)[mask].max()
    print(f"max |logits - transformers| = {err:.2e}")
    assert err <= 1e-4


def test_scanned_and_rematerialised_layers_match_the_loop(hf_qwen3):
    directory, _ = hf_qwen3
    model = convert.load_hf(directory)
    scanned = convert.load_hf(directory, dataclasses.replace(model.config, scan_layers=True, remat=True))
    assert scanned.layers.attn.q_proj.shape[0] == model.config.num_layers
    tokens, positions, mask = right_padded_batch(LENGTHS, T)
    np.testing.assert_allclose(forward(scanned, tokens, positions, mask), forward(model, tokens, positions, mask),
                               atol=1e-5)


def test_cached_decode_reproduces_full_forward(pair):
    _, _, model = pair
    tokens, positions, mask = right_padded_batch(LENGTHS, T, seed=1)
    full = np.asarray(forward(model, tokens, positions, mask))
    prompt = 3  # prefill 3 tokens, then decode one token at a time into a cache of T slots

    @nnx.jit
    def prefill(model, tokens, positions):
        h, cache = model.hidden(tokens, positions, jnp.ones_like(tokens, bool), model.init_cache(len(tokens), T))
        return model.logits(h), cache

    @nnx.jit
    def decode(model, token, position, cache):
        h, cache = model.hidden(token, position, cache=cache, decode=True)
        return model.logits(h), cache

    logits, cache = prefill(model, tokens[:, :prompt], positions[:, :prompt])
    steps = [np.asarray(logits)]
    for t in range(prompt, T):
        logits, cache = decode(model, tokens[:, t:t + 1], positions[:, t:t + 1], cache)
        steps.append(np.asarray(logits))
    cached = np.concatenate(steps, axis=1)
    np.testing.assert_allclose(cached[mask], full[mask], atol=1e-4)


def test_token_logprobs_and_their_gradient_match_transformers(hf_qwen3):
    """Chunked, rematerialised logprobs (values and backward pass) against torch autograd."""
    import torch

    directory, torch_model = hf_qwen3
    model = convert.load_hf(directory)
    tokens, positions, mask = right_padded_batch(LENGTHS, T, seed=2)
    temperature = 0.7
    valid = mask[:, :-1] & mask[:, 1:]
    torch_model.zero_grad()
    logits = torch_model(input_ids=torch.tensor(tokens, dtype=torch.long),
                         attention_mask=torch.tensor(mask.astype(np.int64))).logits / temperature
    logp = torch.log_softmax(logits, -1)[:, :-1].gather(-1, torch.tensor(tokens[:, 1:, None], dtype=torch.long))[..., 0]
    logp = logp * torch.tensor(valid)
    logp.sum().backward()

    def total(m):
        lp = token_logprobs(m, tokens, positions, mask, temperature, chunk_size=5)
        return lp.sum(), lp

    grads, ours = nnx.jit(nnx.grad(total, has_aux=True))(model)
    assert ours.dtype == jnp.float32 and ours.shape == tokens.shape
    np.testing.assert_allclose(ours[:, :-1], logp.detach().numpy(), atol=1e-4)
    assert np.all(np.asarray(ours[:, -1]) == 0)
    torch_grads = dict(torch_model.named_parameters())
    graphdef, _ = nnx.split(model)
    for name, grad in convert.hf_tensors(nnx.merge(graphdef, grads)):
        np.testing.assert_allclose(grad, torch_grads[name].grad.numpy(), atol=1e-4, rtol=1e-3, err_msg=name)


def test_eight_device_mesh_gives_single_device_logits(hf_qwen2):
    directory, _ = hf_qwen2
    assert jax.device_count() == 8, "tests/conftest.py forces 8 CPU devices"
    mesh = sharding.make_mesh(data=2, fsdp=2, tensor=2)
    model = convert.load_hf(directory, mesh=mesh)
    q = model.layers[0].attn.q_proj[...]
    assert q.sharding.spec == jax.sharding.PartitionSpec("fsdp", "tensor", None)
    tokens, positions, mask = right_padded_batch((12, 9, 4, 1), T)
    batch = sharding.batch_sharding(mesh, tokens.shape)
    args = [jax.device_put(x, batch) for x in (tokens, positions, mask)]
    sharded = forward(model, *args)
    single = forward(convert.load_hf(directory), tokens, positions, mask)
    np.testing.assert_allclose(sharded, single, atol=1e-5)


def test_make_mesh_and_rules(hf_qwen2):
    mesh = sharding.make_mesh(tensor=2)
    assert dict(mesh.shape) == {"data": 1, "fsdp": 4, "tensor": 2}
    assert sharding.param_spec("layers/3/mlp/down_proj", (96, 64), mesh) == jax.sharding.PartitionSpec("tensor", "fsdp")
    # A dimension the axis does not divide stays unsharded; fsdp=False keeps tensor parallelism only.
    assert sharding.param_spec("layers/attn/k_proj", (2, 64, 3, 32), mesh) == jax.sharding.PartitionSpec(
        None, "fsdp", None, None)
    assert sharding.param_spec("embed", (128, 64), mesh, fsdp=False) == jax.sharding.PartitionSpec("tensor", None)
    with pytest.raises(ValueError):
        sharding.make_mesh(data=3)
    model = sharding.shard_model(convert.load_hf(hf_qwen2[0]), mesh)
    assert model.layers[0].mlp.gate_proj[...].sharding.spec == jax.sharding.PartitionSpec("fsdp", "tensor")


def test_config_from_hf_reads_both_rope_spellings_and_rejects_sliding_windows():
    base = dict(model_type="qwen2", vocab_size=10, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                num_attention_heads=2, num_key_value_heads=1)
    assert ModelConfig.from_hf({**base, "rope_theta": 5.0}).rope_theta == 5.0
    cfg = ModelConfig.from_hf({**base, "rope_parameters": {"rope_type": "default", "rope_theta": 7.0}})
    assert (cfg.rope_theta, cfg.head_dim, cfg.qkv_bias, cfg.qk_norm) == (7.0, 4, True, False)
    assert ModelConfig.from_hf(cfg.to_hf()) == cfg
    with pytest.raises(ValueError, match="sliding"):
        ModelConfig.from_hf({**base, "use_sliding_window": True, "sliding_window": 4})
    with pytest.raises(ValueError, match="RoPE"):
        ModelConfig.from_hf({**base, "rope_parameters": {"rope_type": "yarn", "rope_theta": 7.0}})
    assert set(PRESETS) >= {"qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-7b", "r1-distill-qwen-1.5b", "qwen3-0.6b",
                            "qwen3-1.7b", "qwen3-4b", "tiny"}
    assert ModelConfig.preset("tiny", num_layers=2).num_layers == 2


def test_preset_shapes_count_the_published_parameters():
    abstract = nnx.eval_shape(lambda: Transformer(ModelConfig.preset("qwen2.5-1.5b"), rngs=nnx.Rngs(0)))
    count = sum(x.size for x in jax.tree.leaves(nnx.state(abstract)))
    assert abs(count - 1.54e9) < 0.01e9, count
