"""HF safetensors <-> our parameters: bit-exact round trips, sharded files, the CLI, clear errors."""

import json
import os

import jax
import numpy as np
import pytest
from safetensors.numpy import load_file

from rlve_jax.models import convert
from rlve_jax.runtime import sharding


def tensors(directory):
    index = os.path.join(directory, "model.safetensors.index.json")
    files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) else [
        "model.safetensors"]
    out = {}
    for name in files:
        out.update(load_file(os.path.join(directory, name)))
    return out


def assert_bit_exact(a_dir, b_dir):
    a, b = tensors(a_dir), tensors(b_dir)
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name].dtype == b[name].dtype and np.array_equal(a[name], b[name]), name


@pytest.mark.parametrize("arch", ["qwen2", "qwen3"])
def test_hf_ours_hf_round_trip_is_bit_exact(arch, request, tmp_path):
    directory, _ = request.getfixturevalue(f"hf_{arch}")
    model = convert.load_hf(directory)
    base = json.load(open(os.path.join(directory, "config.json")))
    convert.save_hf(model, tmp_path / "one", tokenizer_dir=directory, base_config=base)
    assert_bit_exact(directory, tmp_path / "one")
    # Sharded output with an index, read back through the index and in scanned layout.
    convert.save_hf(model, tmp_path / "many", max_shard_bytes=20_000)
    assert os.path.exists(tmp_path / "many" / "model.safetensors.index.json")
    scanned = convert.load_hf(str(tmp_path / "many"), config=model.config.__class__.from_hf(
        str(tmp_path / "many"), scan_layers=True))
    convert.save_hf(scanned, tmp_path / "again")
    assert_bit_exact(directory, tmp_path / "again")
    exported = json.load(open(tmp_path / "one" / "config.json"))
    assert exported["eos_token_id"] == base["eos_token_id"] and exported["model_type"] == arch


def test_transformers_loads_the_export_in_bf16(hf_qwen2, tmp_path):
    from transformers import AutoModelForCausalLM

    directory, torch_model = hf_qwen2
    convert.save_hf(convert.load_hf(directory, dtype="bfloat16"), tmp_path)
    reloaded = AutoModelForCausalLM.from_pretrained(tmp_path)
    assert str(reloaded.dtype) == "torch.bfloat16"
    a = torch_model.model.layers[1].self_attn.q_proj.weight.detach().bfloat16()
    assert (reloaded.model.layers[1].self_attn.q_proj.weight.detach() == a).all()


def test_cli_round_trips_through_orbax_params(hf_qwen3, tmp_path):
    directory, _ = hf_qwen3
    convert.main(["--hf_dir", directory, "--out", str(tmp_path / "params")])
    convert.main(["--params", str(tmp_path / "params"), "--out", str(tmp_path / "hf"), "--to_hf"])
    assert_bit_exact(directory, tmp_path / "hf")
    mesh = sharding.make_mesh(tensor=2)
    restored = convert.load_params(str(tmp_path / "params"), mesh=mesh)
    assert restored.layers[1].attn.q_proj[...].sharding.spec == jax.sharding.PartitionSpec("fsdp", "tensor", None)
    convert.main(["--hf_dir", directory, "--out", str(tmp_path / "direct"), "--to_hf"])
    assert_bit_exact(directory, tmp_path / "direct")


def test_missing_and_unexpected_keys_are_listed_in_one_error(hf_qwen2, tmp_path):
    directory, _ = hf_qwen2
    state = tensors(directory)
    del state["model.layers.1.mlp.up_proj.weight"]
    state["model.layers.0.self_attn.rotary_emb.inv_freq"] = np.zeros(4, np.float32)
    from safetensors.numpy import save_file

    save_file(state, str(tmp_path / "model.safetensors"))
    with pytest.raises(ValueError) as err:
        convert.load_hf(str(tmp_path), config=convert.ModelConfig.from_hf(directory))
    assert "layers/1/mlp/up_proj" in str(err.value) and "rotary_emb.inv_freq" in str(err.value)
