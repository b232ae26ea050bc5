"""C400: all 400 environments, held-out ones included (the paper's final runs), R1-Distill-Qwen-1.5B-style setup.

python -m rlve_jax.main --config=configs/c400.py --config.model.path=/path/to/hf_checkpoint
"""

from rlve_jax.defaults import base_config


def get_config():
    config = base_config()
    config.env.collection = "C400"
    config.tokenizer.boxed_instruction = False  # the original's chat prompt exactly (its 1.5B runs)
    return config
