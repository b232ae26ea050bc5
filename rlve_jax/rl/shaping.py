"""Reward shaping (config key loss.shaping): a group's rewards and response lengths -> the rewards the
advantage estimator sees. The collector's group filter sees the unshaped rewards."""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from rlve_jax.rl.registry import Registry


class ShapingConfig(NamedTuple):
    max_length: int  # rollout.max_response_tokens
    overlong_buffer: int  # loss.overlong_buffer


SHAPING: Registry[Callable[[np.ndarray, np.ndarray, ShapingConfig], np.ndarray]] = Registry("loss.shaping")


@SHAPING.register("none")
def unshaped(rewards: np.ndarray, lengths: np.ndarray, config: ShapingConfig) -> np.ndarray:
    """The verifier's rewards as they are (the paper's runs)."""
    return rewards


@SHAPING.register("overlong")
def overlong(rewards: np.ndarray, lengths: np.ndarray, config: ShapingConfig) -> np.ndarray:
    """DAPO's soft overlong punishment (Yu et al. 2025): rewards plus overlong_penalty of the lengths."""
    return rewards + overlong_penalty(lengths, config.max_length, config.overlong_buffer)


def overlong_penalty(lengths: np.ndarray, max_length: int, buffer: int) -> np.ndarray:
    """DAPO soft overlong punishment, in tokens: 0 up to max-buffer, then linear down to -1."""
    lengths = np.asarray(lengths, np.float64)
    start = max_length - buffer
    penalty = np.where(lengths <= start, 0.0, (start - lengths) / max(buffer, 1))
    return np.maximum(penalty, -1.0).astype(np.float32)
