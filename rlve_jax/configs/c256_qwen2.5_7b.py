"""C256 with the paper's Qwen2.5-7B base setup: TinyZero prompt, <answer> tags, 8k responses, lr 1e-6.

python -m rlve_jax.main --config=configs/c256_qwen2.5_7b.py --config.model.path=/path/to/Qwen2.5-7B
"""

from rlve_jax.defaults import base_config


def get_config():
    config = base_config()
    config.env.collection = "C256"
    config.tokenizer.prompt_format = "tinyzero"
    config.rollout.max_response_tokens = 8192
    config.optim.lr = 1e-6
    return config
