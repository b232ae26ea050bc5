"""LoRA (rlve_jax/models/lora.py, qwix): adapters on the chosen projections, only they train and hold optimizer
state, the sampler's merged weights give the adapted model's logits, checkpoints resume exactly and refuse
another base, the planner counts it, and the PEFT export loads in `peft` with our logits (transformers as the
oracle, models built from configs)."""

import dataclasses
import functools
import json

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from models_for_tests import config_policy, right_padded_batch, torch_logits
from rlve_jax import export, plan
from rlve_jax.defaults import ConfigError, base_config, validate
from rlve_jax.models import lora
from rlve_jax.runtime import sharding, trainable
from rlve_jax.models.model import PRESETS, Transformer
from rlve_jax.rl import losses, train_step
from rlve_jax.rl.batching import build_sequences
from rlve_jax.runtime.checkpoint import Checkpointer, TrainState
from rlve_jax.runtime.memory import count

ALL = lora.LoraConfig(4, 8.0, tuple(lora.PROJECTIONS))
OPTIM = train_step.OptimSettings(lr=0.05, b1=0.9, b2=0.98, eps=1e-8, weight_decay=0.0, grad_clip=1.0,
                                 warmup_steps=0)


@pytest.fixture(scope="module")
def tokenizer_path(tmp_path_factory):
    """The tiny run's tokenizer, built once for the module's policies."""
    from configs.tiny import get_config

    workdir = tmp_path_factory.mktemp("tokenizer_run")
    config_policy(get_config(), ["Multiplication"], workdir)
    return str(workdir / "tokenizer")


def lora_config(tokenizer_path, rank=4, targets="q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj",
                scan_layers=False):
    """configs/tiny.py with LoRA (no warm start) and the module's tokenizer."""
    from configs.tiny import get_config

    config = get_config()
    config.tokenizer.path = tokenizer_path
    config.model.scan_layers = scan_layers
    config.model.lora.rank, config.model.lora.alpha, config.model.lora.targets = rank, 8.0, targets
    config.warm_start.steps = 0
    return config


def perturbed(params, scale=0.05, seed=1):
    """The adapters moved off their start (B = 0 there), so that they change the logits (host draws: no compile)."""
    adapters, base = trainable.split_trainable(params)
    rng = np.random.default_rng(seed)
    moved = jax.tree.map(lambda x: jax.device_put(np.asarray(x) + scale * rng.standard_normal(x.shape, np.float32),
                                                  x.sharding), adapters)
    return trainable.merge_trainable(moved, base)


@functools.partial(jax.jit, static_argnums=0)
def forward(graphdef, states, tokens, positions, mask):
    """Logits [B, T, V] of the model (graphdef, *states); one compile per graph and placement."""
    return nnx.merge(graphdef, *states)(tokens, positions, mask)


def logits(policy, params, tokens, positions, mask):
    """The adapted model's logits (through qwix's interception, traced once)."""
    return np.asarray(forward(policy.graphdef, (params, policy.rest), tokens, positions, mask))


def plain_logits(model, tokens, positions, mask):
    graphdef, state = nnx.split(model)
    return np.asarray(forward(graphdef, (state,), tokens, positions, mask))


def batch_of(vocab, seed=0):
    rng = np.random.default_rng(seed)
    prompts = [rng.integers(3, vocab, 5).tolist() for _ in range(8)]
    responses = [rng.integers(3, vocab, 6).tolist() for _ in range(8)]
    return build_sequences(prompts, responses, 0, [np.full(6, -3.0, np.float32)] * 8, [1.0, -1.0] * 4)


def test_config_errors_are_one_line():
    config = base_config()
    config.model.lora.rank, config.model.lora.alpha, config.model.lora.targets = -1, 0.0, "q_proj,qkv"
    with pytest.raises(ConfigError) as error:
        validate(config)
    message = str(error.value)
    assert "\n" not in message and "model.lora.rank=-1" in message and "model.lora.alpha=0.0" in message
    assert "model.lora.targets='q_proj,qkv' must be a comma-separated list of q_proj, k_proj" in message
    assert lora.LoraConfig.of(**base_config().model.lora) is None  # rank 0: off, the default


def test_adapters_start_at_the_base_model_and_merge_exactly(tokenizer_path, tmp_path):
    """Scanned, rematerialised layers (adapters with a leading [L]; the loop layout is the other tests'). B = 0 at
    the start: the sampler's plain model (the base) gives the adapted model's logits. Moved adapters: the sampler's
    merged weights still do, on every projection (k and v share a shape: each its own)."""
    config = lora_config(tokenizer_path, scan_layers=True)
    config.model.remat = True
    policy = config_policy(config, ["Multiplication"], tmp_path)
    adapters, base = trainable.split_trainable(policy.params)
    cfg = policy.model_config
    per_layer = sum(4 * (i + o) for i, o in [(cfg.hidden_size, cfg.num_heads * cfg.head_dim)]
                    + [(cfg.hidden_size, cfg.num_kv_heads * cfg.head_dim)] * 2
                    + [(cfg.num_heads * cfg.head_dim, cfg.hidden_size)]
                    + [(cfg.hidden_size, cfg.intermediate_size)] * 2 + [(cfg.intermediate_size, cfg.hidden_size)])
    assert sum(x.size for x in jax.tree.leaves(adapters)) == cfg.num_layers * per_layer
    tokens, positions, mask = right_padded_batch([7, 12, 3], 12)
    start = logits(policy, policy.params, tokens, positions, mask)
    sampler = policy.sampler_model()
    assert not trainable.has_adapters(nnx.state(sampler)) and type(sampler) is Transformer
    np.testing.assert_allclose(plain_logits(sampler, tokens, positions, mask), start, atol=1e-6, rtol=0)
    policy.params = perturbed(policy.params)
    adapted = logits(policy, policy.params, tokens, positions, mask)
    merged = plain_logits(policy.sampler_model(), tokens, positions, mask)
    np.testing.assert_allclose(merged[mask], adapted[mask], atol=1e-5, rtol=0)
    assert np.abs(adapted - start)[mask].max() > 1e-2


def test_targets_choose_the_projections(tokenizer_path, tmp_path):
    policy = config_policy(lora_config(tokenizer_path, rank=2, targets="v_proj,down_proj"), ["Multiplication"],
                         tmp_path)
    names = {str(path[-1]) for path, _ in nnx.to_flat_state(trainable.split_trainable(policy.params)[0])}
    assert names == {"v_proj_lora_a", "v_proj_lora_b", "down_proj_lora_a", "down_proj_lora_b"}
    policy.params = perturbed(policy.params)
    tokens, positions, mask = right_padded_batch([9, 4], 10)
    np.testing.assert_allclose(plain_logits(policy.sampler_model(), tokens, positions, mask)[mask],
                               logits(policy, policy.params, tokens, positions, mask)[mask], atol=1e-5, rtol=0)


def step_functions(policy, tx, opt_state):
    """The trainer's accumulate and apply for the policy's model (jitted once, reused by every run below)."""
    micro_loss = train_step.make_micro_loss(policy.graphdef, policy.rest, losses.LossConfig(), 1.0)
    accumulate = train_step.make_accumulate(micro_loss, train_step.accumulator_shardings(micro_loss, policy.params,
                                                                                          policy.mesh))
    apply = train_step.make_apply(tx, policy.params, opt_state, policy.mesh, train_step.learning_rate(OPTIM))
    return micro_loss, accumulate, apply


def train_steps(policy, functions, params, opt_state, steps, first=0):
    """`steps` accumulate + apply steps on fixed batches, from copies of params and opt_state (apply donates)."""
    micro_loss, accumulate, apply = functions
    params, opt_state = jax.tree.map(jnp.copy, (params, opt_state))
    with jax.set_mesh(policy.mesh):
        for step in range(first, first + steps):
            acc = accumulate(params, train_step.zero_accumulator(micro_loss, params),
                             batch_of(policy.model_config.vocab_size, step), None)
            params, opt_state, _ = apply(params, opt_state, acc)
    return params, opt_state


def test_only_adapters_train_and_checkpoints_resume_exactly(tokenizer_path, tmp_path):
    """The optimizer state mirrors the adapters only; a step moves them and leaves the base bit-identical. Two
    steps equal one step, a checkpoint (adapters + optimizer state, not the base), a fresh policy restored from
    it and one more step, bit for bit. A checkpoint refuses another base and a model without adapters."""
    config = lora_config(tokenizer_path)
    policy = config_policy(config, ["Multiplication"], tmp_path)
    start_adapters, start_base = jax.tree.map(np.asarray, trainable.split_trainable(policy.params))
    tx = train_step.make_optimizer(OPTIM)
    opt_state = train_step.init_optimizer(tx, policy.params, policy.mesh)
    adam = [x for x in jax.tree.leaves(opt_state) if x.ndim]
    assert sum(x.size for x in adam) == 2 * sum(x.size for x in jax.tree.leaves(start_adapters))
    functions = step_functions(policy, tx, opt_state)
    one, opt_one = train_steps(policy, functions, policy.params, opt_state, 1)
    adapters, base = trainable.split_trainable(one)
    for a, b in zip(jax.tree.leaves(base), jax.tree.leaves(start_base)):
        np.testing.assert_array_equal(a, b)
    start = dict(nnx.to_flat_state(start_adapters))
    moved = {str(p[-1]): not np.array_equal(a[...], start[p][...]) for p, a in nnx.to_flat_state(adapters)}
    assert all(moved[n] for n in moved if n.endswith("_b"))  # B from 0; A's gradient is 0 while B is 0
    two, _ = train_steps(policy, functions, policy.params, opt_state, 2)

    checkpointer = Checkpointer(tmp_path / "run")
    checkpointer.save(TrainState(one, opt_one, 1), {"config": config.to_dict()})
    saved = jax.tree.leaves(checkpointer.manager.item_metadata(1)["params"])
    assert len(saved) == len(jax.tree.leaves(adapters))  # the adapters, not the base
    fresh = config_policy(config, ["Multiplication"], tmp_path)
    restored, _ = checkpointer.restore(1, TrainState(fresh.params, opt_state, 0))  # opt_state: the target
    fresh.params, restored_opt = restored.params, restored.opt_state
    resumed, _ = train_steps(fresh, functions, fresh.params, restored_opt, 1, first=1)
    for a, b in zip(jax.tree.leaves(resumed), jax.tree.leaves(two)):
        np.testing.assert_array_equal(a, b)

    other_seed = lora_config(tokenizer_path)
    other_seed.seed = 1
    other = config_policy(other_seed, ["Multiplication"], tmp_path)
    with pytest.raises(ValueError, match="trained on other base weights"):
        checkpointer.restore_params(1, other.params)
    full = config_policy(lora_config(tokenizer_path, rank=0), ["Multiplication"], tmp_path)
    with pytest.raises(ValueError, match="holds LoRA adapters only"):
        checkpointer.restore_params(1, full.params)
    checkpointer.close()


def test_the_plan_counts_adapters_with_optimizer_state_and_a_frozen_base(tokenizer_path):
    """The planner's train step: the base weights without optimizer state, Adam's moments and the gradient
    accumulator the adapters' size."""
    config = lora_config(tokenizer_path, scan_layers=True)
    cfg = dataclasses.replace(PRESETS["micro"], scan_layers=True, param_dtype="float32", compute_dtype="float32")
    mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(1, -1, 1), ("data", "fsdp", "tensor"))
    step = plan.train_step(config, cfg, mesh)
    adapters, base = trainable.split_trainable(step.params)
    n_adapters, n_base = count(adapters), count(base)
    assert n_base == count(nnx.state(nnx.eval_shape(lambda: Transformer(cfg, rngs=nnx.Rngs(0))), nnx.Param))
    assert count([x for x in jax.tree.leaves(step.opt_state) if x.ndim]) == 2 * n_adapters
    assert count(step.acc.grads) == n_adapters
    # Adapters placed like their weights: A over the input axis (fsdp), B's rank axis whole.
    shardings = {str(p[-1]): v.get_value().sharding.spec for p, v in nnx.to_flat_state(adapters)}
    assert shardings["q_proj_lora_a"] == jax.P(None, "fsdp", None)
    assert shardings["down_proj_lora_b"] == jax.P(None, None, "fsdp")


def tree_bytes(tree) -> int:
    return sum(x.nbytes for x in jax.tree.leaves(tree))


def test_a_rollout_mesh_of_its_own_gets_the_base_once_then_the_adapters_alone(tokenizer_path, tmp_path,
                                                                              monkeypatch):
    """mesh.rollout_devices=2 of the 8 (one-step-off-policy's split meshes): the first weight transfer sends the
    frozen base and the adapters, each later one the adapters alone; merged on the rollout devices they are the
    weights the shared path merges on the training mesh."""
    config = lora_config(tokenizer_path)
    config.mesh.rollout_devices = 2
    policy = config_policy(config, ["Multiplication"], tmp_path)
    sent = []
    send = sharding.sampler_state
    monkeypatch.setattr(sharding, "sampler_state", lambda state, mesh, sampler: sent.append(tree_bytes(state))
                        or send(state, mesh, sampler))
    adapters, base = trainable.split_trainable(policy.params)
    policy.sampler_model()
    policy.params = perturbed(policy.params)
    sampler = policy.sampler_model()
    assert sent == [tree_bytes(base), tree_bytes(adapters), tree_bytes(adapters)]
    print(f"bytes per weight transfer: {tree_bytes(base) + tree_bytes(adapters):,} with every weight, "
          f"{tree_bytes(adapters):,} with the adapters alone")
    merged = lora.merge_params(policy.params, policy.lora.scale, policy.model_config.scan_layers)
    for x, y in zip(jax.tree.leaves(nnx.state(sampler, nnx.Param)), jax.tree.leaves(merged)):
        assert set(x.sharding.device_set) == set(policy.sampler_mesh.devices.flat)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_the_warm_start_trains_the_adapters_alone(tokenizer_path, tmp_path):
    """LoRA with a supervised warm start: the warm start trains what RL trains, the adapters; the base the
    checkpoints' adapters are checked against stays bit-identical."""
    from rlve_jax.defaults import settings
    from rlve_jax.gym import registry
    from rlve_jax.gym.pool import EnvPool
    from rlve_jax.rl.warm_start import warm_start
    from rlve_jax.runtime.metrics import MetricsWriter

    config = lora_config(tokenizer_path)
    config.warm_start.steps, config.warm_start.batch_size = 3, 8
    config.env.collection = "Multiplication"
    validate(config)  # no longer refused
    policy = config_policy(config, ["Multiplication"], tmp_path)
    start_adapters, start_base = jax.tree.map(np.asarray, trainable.split_trainable(policy.params))
    s = settings(config)
    with EnvPool(workers=0) as pool:
        params = warm_start(policy, pool, {"Multiplication": registry.make("Multiplication")},
                            MetricsWriter(tmp_path, tensorboard=False), policy.params, settings=s.warm_start, seed=0,
                            max_failure_share=0.5, progress=False)
    adapters, base = trainable.split_trainable(params)
    for a, b in zip(jax.tree.leaves(base), jax.tree.leaves(start_base)):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(jax.tree.leaves(adapters), jax.tree.leaves(start_adapters)))


@pytest.fixture(scope="module")
def qwen2_lora_run(hf_qwen2, tokenizer_path, tmp_path_factory):
    """A LoRA run on an HF Qwen2 base (q/k/v bias, untied head) with moved adapters, checkpointed."""
    directory, _ = hf_qwen2
    workdir = tmp_path_factory.mktemp("lora_run")
    config = lora_config(tokenizer_path, rank=4)
    config.model.path, config.model.preset = directory, ""
    policy = config_policy(config, ["Multiplication"], workdir)
    policy.params = perturbed(policy.params, scale=0.2)
    checkpointer = Checkpointer(workdir)
    checkpointer.save(TrainState(policy.params, optax.sgd(0.1).init(trainable.split_trainable(policy.params)[0]), 2),
                      {"config": config.to_dict()})
    checkpointer.close()
    return workdir, policy, directory


def test_peft_loads_the_adapter_export_with_our_logits(qwen2_lora_run, tmp_path):
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    workdir, policy, directory = qwen2_lora_run
    export.main(["--workdir", str(workdir), "--out", str(tmp_path / "adapter"), "--format", "peft"])
    adapter_config = json.loads((tmp_path / "adapter" / "adapter_config.json").read_text())
    assert adapter_config["r"] == 4 and adapter_config["base_model_name_or_path"] == directory
    base = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
    tokens, positions, mask = right_padded_batch([9, 5, 12], 12)
    base_logits = torch_logits(base, tokens, mask)
    model = PeftModel.from_pretrained(base, tmp_path / "adapter").eval()  # adapts `base` in place
    assert "base_model.model.model.layers.1.self_attn.k_proj.lora_B.weight" in model.state_dict().keys() | {
        k.replace(".default", "") for k in model.state_dict()}
    ours = logits(policy, policy.params, tokens, positions, mask)
    theirs = torch_logits(model, tokens, mask)
    assert np.abs(ours[mask] - base_logits[mask]).max() > 1e-2  # the adapters act
    np.testing.assert_allclose(ours[mask], theirs[mask], atol=1e-5, rtol=0)

    export.export(workdir, tmp_path / "merged")  # the default: the adapters merged into HF weights
    merged = AutoModelForCausalLM.from_pretrained(tmp_path / "merged", dtype=torch.float32).eval()
    np.testing.assert_allclose(ours[mask], torch_logits(merged, tokens, mask)[mask], atol=1e-5, rtol=0)


def test_peft_export_of_a_full_run_is_a_one_line_error(tokenizer_path, tmp_path, capsys):
    config = lora_config(tokenizer_path, rank=0)
    policy = config_policy(config, ["Multiplication"], tmp_path)
    checkpointer = Checkpointer(tmp_path)
    checkpointer.save(TrainState(policy.params, optax.sgd(0.1).init(policy.params), 1), {"config": config.to_dict()})
    checkpointer.close()
    with pytest.raises(SystemExit):
        export.main(["--workdir", str(tmp_path), "--out", str(tmp_path / "adapter"), "--format", "peft"])
    assert "--format peft needs a LoRA run" in capsys.readouterr().err


def test_merge_params_is_w_plus_scaled_a_b():
    w = jnp.arange(6.0).reshape(2, 3)
    a, b = jnp.array([[1.0], [2.0]]), jnp.array([[0.5, 0.0, -1.0]])
    state = nnx.State({"mlp": {"up_proj": nnx.Param(w), "up_proj_lora_a": nnx.LoRAParam(a),
                               "up_proj_lora_b": nnx.LoRAParam(b)}})
    merged = lora.merge_params(state, 2.0, False)
    np.testing.assert_array_equal(merged["mlp"]["up_proj"][...], w + 2.0 * a @ b)
    assert set(merged["mlp"]) == {"up_proj"}
