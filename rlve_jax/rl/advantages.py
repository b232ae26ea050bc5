"""Advantage estimators (config key loss.advantage): a group's G rewards -> G advantages.

All take rewards [P, G] (P groups of G responses to one prompt each) and return f32 [P, G]; every row is
computed on its own, so calling them one group at a time gives the same numbers.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from rlve_jax.rl.registry import Registry

ADVANTAGES: Registry[Callable[[np.ndarray], np.ndarray]] = Registry("loss.advantage")
EPS = 1e-6


@ADVANTAGES.register("grpo")
def grpo(rewards: np.ndarray) -> np.ndarray:
    """GRPO (Shao et al. 2024, DeepSeekMath; the paper's): reward minus its group mean, over (group std + 1e-6).

    The std is the unbiased one (Bessel), as torch.std in the original.
    """
    grouped = np.asarray(rewards, np.float64)  # [P, G]
    centered = grouped - grouped.mean(axis=1, keepdims=True)
    std = grouped.std(axis=1, ddof=1, keepdims=True) if grouped.shape[1] > 1 else np.zeros_like(centered)
    return (centered / (std + EPS)).astype(np.float32)


@ADVANTAGES.register("dr_grpo")
def dr_grpo(rewards: np.ndarray) -> np.ndarray:
    """Dr. GRPO (Liu et al. 2025, "Understanding R1-Zero-Like Training"): reward minus its group mean, no std
    division (which up-weights groups that are nearly all right or all wrong). Pair it with
    loss.aggregation="seq-mean-token-sum-norm" for the paper's length-unbiased loss."""
    grouped = np.asarray(rewards, np.float64)  # [P, G]
    return (grouped - grouped.mean(axis=1, keepdims=True)).astype(np.float32)


@ADVANTAGES.register("rloo")
def rloo(rewards: np.ndarray) -> np.ndarray:
    """RLOO (Ahmadian et al. 2024, "Back to Basics"): reward minus the mean of the group's other G-1 rewards,
    i.e. G/(G-1) x (reward - group mean); 0 for G = 1."""
    grouped = np.asarray(rewards, np.float64)  # [P, G]
    g = grouped.shape[1]
    if g < 2:
        return np.zeros(grouped.shape, np.float32)
    leave_one_out = (grouped.sum(axis=1, keepdims=True) - grouped) / (g - 1)
    return (grouped - leave_one_out).astype(np.float32)
