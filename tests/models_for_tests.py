"""Tiny random HF Qwen checkpoints built from configs (no download) and batch helpers."""

import numpy as np

VOCAB = 128


def save_random_hf(arch: str, directory, seed: int = 0):
    """Save a 2-layer random Qwen2 or Qwen3 model with transformers; return (directory, model)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM

    common = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                  eos_token_id=VOCAB - 1, pad_token_id=VOCAB - 2)
    if arch == "qwen2":
        config, cls = Qwen2Config(**common, tie_word_embeddings=False, rope_theta=10000.0), Qwen2ForCausalLM
    else:
        config, cls = Qwen3Config(**common, head_dim=32, tie_word_embeddings=True), Qwen3ForCausalLM
    torch.manual_seed(seed)
    model = cls(config).eval()
    with torch.no_grad():  # larger than the default init so that logits are not all ~0
        for p in model.parameters():
            p.normal_(0.0, 0.15)
    model.save_pretrained(directory)
    return str(directory), model


def right_padded_batch(lengths, total: int, seed: int = 0):
    """Random tokens [B, T], positions [B, T] and mask [B, T] with the given valid lengths."""
    rng = np.random.default_rng(seed)
    lengths = np.asarray(lengths)
    tokens = rng.integers(0, VOCAB - 2, (len(lengths), total)).astype(np.int32)
    mask = np.arange(total)[None, :] < lengths[:, None]
    tokens = np.where(mask, tokens, 0).astype(np.int32)
    positions = np.broadcast_to(np.arange(total, dtype=np.int32), tokens.shape).copy()
    return tokens, positions, mask


def torch_logits(model, tokens, mask):
    import torch

    with torch.no_grad():
        return model(input_ids=torch.tensor(tokens, dtype=torch.long),
                     attention_mask=torch.tensor(mask.astype(np.int64))).logits.float().numpy()


def use_micro_policy(config, env: str = "Multiplication"):
    """An eval config set to a random `micro` policy with the tiny tokenizer, f32, on one environment."""
    config.model.preset, config.model.dtype = "micro", "float32"
    config.model.remat = config.model.scan_layers = False
    config.tokenizer.path = "tiny"
    config.env.collection = env
    return config


def config_policy(config, env_names, workdir):
    """The policy of a config's model, tokenizer and mesh sections, as the builder and evaluation assemble it."""
    from rlve_jax.defaults import settings
    from rlve_jax.models.policy import load_policy

    s = settings(config)
    return load_policy(s.model, s.tokenizer, s.mesh, seed=s.seed, env_names=env_names, workdir=workdir)
