"""The embedded default: the whole RLVE method on a laptop CPU in minutes.

python -m rlve_jax.main --config=configs/tiny.py --workdir=/tmp/rlve_tiny

A tiny Qwen3-shaped model and a small BPE tokenizer built from the gym's prompts, a 30-step supervised
warm start that teaches the answer format only (level 0 is then 40% solved), then RLVE with the adaptive
scheduler (the paper's rule: promote h once the accuracy at h reaches 0.9 over min_prompts x
samples_per_prompt rollouts). IntegerFactorizationCounting suits a 0.5 M-parameter policy: one number per
problem, small answers, and each level adds numbers no earlier level showed, so every level, level 0
included, is learned by RL (README "What the tiny run shows": h climbs to 3-5 on seeds 0-2). 16 samples per
prompt keep a right answer among the samples of a number the policy is still unsure of (with 8 the window
stalled at level 1-2); a learning rate of 3e-4 (1e-3 collapsed the policy's entropy).
"""

from rlve_jax.defaults import base_config


def get_config():
    config = base_config()
    config.steps = 200
    config.model.preset = "micro"
    config.model.dtype = "float32"
    config.model.remat = False
    config.model.scan_layers = False
    config.tokenizer.path = "tiny"
    config.tokenizer.prompt_format = "chat"
    config.env.collection = "IntegerFactorizationCounting"
    config.env.workers = 2
    config.scheduler.min_prompts = 2  # 2 prompts x 16 samples = 32 rollouts at h before a check
    config.rollout.prompts_per_step = 8
    config.rollout.samples_per_prompt = 16
    config.rollout.oversample_prompts = 16
    config.rollout.max_prompt_tokens = 128
    config.rollout.max_response_tokens = 16
    config.rollout.partial_rollouts = False  # every step decodes its own rows to the end (paper configs: on)
    config.loss.shaping = "overlong"  # DAPO's penalty over the last 4 tokens: without it RL drops the stop token
    config.loss.overlong_buffer = 4
    config.optim.lr = 3e-4
    config.optim.weight_decay = 0.0
    config.train.micro_batch_size = 64
    config.warm_start.steps = 30  # the answer format only: every level is learned by RL
    config.warm_start.batch_size = 32
    config.warm_start.lr = 3e-3
    config.warm_start.max_difficulty = 0
    config.checkpoint.every = 10
    config.eval.every = 0
    return config
