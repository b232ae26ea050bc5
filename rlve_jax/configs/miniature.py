"""The adaptive-difficulty miniature (experiments/adaptive_vs_static.py): the paper's Fig. 3 on a laptop CPU.

python -m rlve_jax.main --config=configs/miniature.py --workdir=/tmp/rlve_miniature

The tiny run's policy and loop on Sorting, whose levels are longer lists (3, 4, 5, 6, ... numbers): the
skill a level teaches (emit the numbers in order) carries to the next, so the adaptive window can climb
by what RL learns at its top. An 800-step warm start over levels 0-3 leaves a policy the paper's rule can
promote (T = 1 accuracy about 0.95 at levels 0-1), that solves level 3 at T = 1 in 60-80% of draws and
levels 4 and up almost never, and that still explores; the binary accuracy is both the reward and the
dynamic-sampling key (with a shaped reward, two different wrong answers would count as informative).
"""

from rlve_jax.configs.tiny import get_config as tiny_config


def get_config():
    config = tiny_config()
    config.steps = 200
    config.env.collection = "Sorting"
    config.env.reward_key = "accuracy"
    config.rollout.samples_per_prompt = 8
    config.scheduler.min_prompts = 4  # the paper's rule over 4 x 8 = 32 rollouts at h
    config.rollout.max_rounds = 4  # dynamic sampling: up to 4 x 16 prompts drawn to find informative groups
    config.rollout.max_response_tokens = 40  # level 7: 10 numbers, ~25 tokens
    config.loss.shaping = "overlong"  # DAPO's penalty over the last 8 tokens: keeps the stop token under RL
    config.loss.overlong_buffer = 8
    config.optim.lr = 1e-4  # 5e-4 eroded every level in 60 steps (README); 1e-4 keeps them and learns
    config.optim.warmup_steps = 10
    config.warm_start.steps = 800  # the shortest of 400/800/1200 with T = 1 accuracy >= 0.9 at levels 0-1
    config.warm_start.lr = 1e-3  # 3e-3 (the tiny run's) left one probe seed's warm start stuck at 20x the loss
    config.warm_start.max_difficulty = 3  # lists of 3-6 numbers: level 0 mostly solved, 1 partly, 4 and up never
    return config
