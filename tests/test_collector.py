"""The collector's step metrics: the paper's effective prompt ratio and the kept share."""

import numpy as np

from rlve_jax.rl.collector import GroupRecords, rollout_metrics
from rlve_jax.generation.rollout import RolloutStats


def records(informative: list[bool], g: int = 4) -> GroupRecords:
    n = len(informative)
    reward = np.array([[0.0, 1.0] * (g // 2) if i else [1.0] * g for i in informative])
    return GroupRecords(owner=np.zeros(n, np.int32), env=np.zeros(n, np.int32), difficulty=np.zeros(n, np.int32),
                        prompt_length=np.full(n, 5, np.int32), informative=np.array(informative),
                        passes=np.array(informative), reward=reward,
                        accuracy=reward > 0, format_ok=np.ones((n, g), bool), length=np.full((n, g), 3, np.int32),
                        truncated=np.zeros((n, g), bool))


def test_every_group_informative_reads_one_even_when_the_batch_keeps_half():
    stats = RolloutStats(drawn_groups=16, kept_groups=8)  # prompts_per_step 8 of 16 drawn, all informative
    metrics = rollout_metrics(records([True] * 16), ["Sorting"], stats)
    assert metrics["rollout/effective_prompt_ratio"] == 1.0
    assert metrics["rollout/kept_ratio"] == 0.5


def test_effective_ratio_counts_groups_with_unequal_rewards():
    stats = RolloutStats(drawn_groups=4, kept_groups=1)
    metrics = rollout_metrics(records([True, False, False, False]), ["Sorting"], stats)
    assert metrics["rollout/effective_prompt_ratio"] == 0.25
    assert metrics["rollout/kept_ratio"] == 0.25


def test_binary_key_ratio_ignores_groups_informative_only_on_the_shaped_reward():
    stats = RolloutStats(drawn_groups=2, kept_groups=2, sampled_logprob_sum=-12.0, generated_tokens=24)
    two = records([True, True])
    two.reward[1] = [-0.5, -1.0, -0.5, -1.0]  # two different wrong answers: informative on the reward only
    two.accuracy[1] = False
    metrics = rollout_metrics(two, ["Sorting"], stats)
    assert metrics["rollout/effective_prompt_ratio"] == 1.0
    assert metrics["rollout/effective_prompt_ratio_accuracy"] == 0.5
    assert metrics["rollout/entropy"] == 0.5  # 12 nats over 24 tokens
    assert metrics["rollout/entropy_per_response"] == 1.5  # 12 nats over 8 responses
