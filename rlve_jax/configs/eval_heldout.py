"""Accuracy on the 50 held-out environments (2 500 frozen problems, rlve_jax/data/heldout_test.jsonl).

python -m rlve_jax.main --config=configs/eval_heldout.py --config.model.path=DIR

One sample per problem at temperature 0.6, top-p 0.95, up to 32 768 new tokens (the
original's standalone evaluation); accuracy per environment, per difficulty and overall.
"""

from rlve_jax.defaults import base_config


def get_config():
    config = base_config()
    config.mode = "eval"
    config.eval.suite = "heldout"
    config.eval.problems = 0
    config.eval.temperature = 0.6
    config.eval.top_p = 0.95
    config.eval.max_response_tokens = 32768
    config.rollout.max_prompt_tokens = 0
    return config
