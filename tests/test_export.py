"""A training run's checkpoint -> HF checkpoint: transformers loads it, same logits, generate works."""

import json

import jax
import numpy as np
import optax
import pytest
from flax import nnx

from models_for_tests import config_policy, right_padded_batch, torch_logits
from rlve_jax import export
from rlve_jax.runtime.checkpoint import Checkpointer, TrainState


def make_run(workdir, scan_layers: bool, steps=(3, 7)):
    """A tiny run's workdir: its tokenizer and checkpoints of a sharded (8 CPU devices) micro policy,
    parameters scaled differently per step so that each step is recognisable."""
    from configs.tiny import get_config

    config = get_config()
    config.model.scan_layers = scan_layers
    policy = config_policy(config, ["Multiplication"], workdir)
    checkpointer = Checkpointer(workdir)
    saved = {}
    for step in steps:
        params = jax.tree.map(lambda x: x * (1.0 + step / 10), policy.params)
        checkpointer.save(TrainState(params, optax.sgd(0.1).init(params), step), {"config": config.to_dict()})
        saved[step] = nnx.merge(policy.graphdef, params, policy.rest)
    checkpointer.close()
    return saved, policy


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("run")
    saved, policy = make_run(workdir, scan_layers=False)
    return workdir, saved, policy


@pytest.mark.parametrize("layout", ["loop", "scanned"])
def test_export_matches_the_runs_own_logits(layout, tiny_run, tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    if layout == "loop":
        workdir, saved, _ = tiny_run
    else:
        workdir = tmp_path / "run"
        saved, _ = make_run(workdir, scan_layers=True, steps=(7,))
    export.main(["--workdir", str(workdir), "--out", str(tmp_path / "hf")])  # the latest step: 7
    files = set(p.name for p in (tmp_path / "hf").iterdir())
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
            "generation_config.json"} <= files
    hf = AutoModelForCausalLM.from_pretrained(tmp_path / "hf", dtype=torch.float32).eval()
    tokens, positions, mask = right_padded_batch([9, 5, 12], 12)
    ours = np.asarray(saved[7](tokens, positions, mask))  # [B, T, V]
    theirs = torch_logits(hf, tokens, mask)
    np.testing.assert_allclose(ours[mask], theirs[mask], atol=1e-5, rtol=0)


def test_transformers_generate_and_tokenizer_on_the_export(tiny_run, tmp_path):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    workdir, saved, policy = tiny_run
    out = export.export(workdir, tmp_path / "hf", step=3)
    assert json.loads((out / "rlve_export.json").read_text())["step"] == 3
    tokenizer = AutoTokenizer.from_pretrained(out)
    text = "Compute 12 * 34."
    assert tokenizer(text)["input_ids"] == policy.tokenizer.encode(text)
    messages = [{"role": "user", "content": text}]
    assert tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True) == \
        policy.tokenizer.apply_chat_template(messages)
    hf = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32)
    assert hf.generation_config.eos_token_id == list(policy.tokenizer.eos_ids)
    prompt = tokenizer(text, return_tensors="pt")
    n = prompt["input_ids"].shape[1]
    generated = hf.generate(**prompt, max_new_tokens=6, min_new_tokens=6, do_sample=False)[0]  # [n + 6]
    assert generated.shape == (n + 6,)
    # Greedy: each new token is the argmax of the run's own model on the text so far (stop ids
    # excluded, as min_new_tokens does).
    tokens = generated.numpy()[None].astype(np.int32)
    ours = np.array(saved[3](tokens, np.arange(n + 6, dtype=np.int32)[None], np.ones_like(tokens, bool)))
    ours[..., list(policy.stop_ids)] = -np.inf
    np.testing.assert_array_equal(ours[0, n - 1:-1].argmax(-1), tokens[0, n:])


def test_bfloat16_export_and_missing_steps(tiny_run, tmp_path, capsys):
    import torch
    from transformers import AutoModelForCausalLM

    workdir, _, _ = tiny_run
    export.main(["--workdir", str(workdir), "--step", "3", "--dtype", "bfloat16", "--out", str(tmp_path / "bf16")])
    assert "wrote step 3" in capsys.readouterr().out
    assert AutoModelForCausalLM.from_pretrained(tmp_path / "bf16").dtype == torch.bfloat16
    with pytest.raises(SystemExit):
        export.main(["--workdir", str(workdir), "--step", "5", "--out", str(tmp_path / "none")])
    error = capsys.readouterr().err
    assert "no checkpoint 5" in error and "[3, 7]" in error


def test_a_run_from_an_hf_checkpoint_exports_its_base_config_and_exact_tensors(hf_qwen2, tiny_run, tmp_path):
    """A run that started from an HF model (Qwen2: q/k/v bias, untied head): the export keeps the base
    config.json's fields and, parameters unchanged, gives back the base model's tensors bit for bit."""
    from configs.tiny import get_config
    from safetensors.numpy import load_file

    directory, _ = hf_qwen2
    config = get_config()
    config.model.path, config.model.preset = directory, ""
    config.tokenizer.path = str(tiny_run[0] / "tokenizer")
    workdir = tmp_path / "run"
    policy = config_policy(config, ["Multiplication"], workdir)
    checkpointer = Checkpointer(workdir)
    checkpointer.save(TrainState(policy.params, optax.sgd(0.1).init(policy.params), 1), {"config": config.to_dict()})
    checkpointer.close()
    out = export.export(workdir, tmp_path / "hf")
    base, exported = json.load(open(f"{directory}/config.json")), json.loads((out / "config.json").read_text())
    assert (exported["eos_token_id"], exported["pad_token_id"]) == (base["eos_token_id"], base["pad_token_id"])
    assert exported["model_type"] == "qwen2" and not exported["tie_word_embeddings"]
    original, written = load_file(f"{directory}/model.safetensors"), load_file(out / "model.safetensors")
    assert sorted(original) == sorted(written)
    assert all(np.array_equal(original[k], written[k]) for k in original)
