"""Group filters for dynamic sampling (config key rollout.group_filter): which verified groups a step's
batch keeps. The collector draws more rounds until prompts_per_step groups pass (or rollout.max_rounds)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from rlve_jax.rl.registry import Registry

GROUP_FILTERS: Registry[Callable[[np.ndarray], bool]] = Registry("rollout.group_filter")


def informative(rewards: np.ndarray) -> bool:
    """Whether a group's rewards are not all equal: only such a group has non-zero advantages."""
    return bool(np.std(rewards) > 0)


GROUP_FILTERS.register("informative")(informative)  # DAPO's dynamic sampling (Yu et al. 2025; the paper's)


@GROUP_FILTERS.register("all")
def keep_all(rewards: np.ndarray) -> bool:
    """Every group (no dynamic sampling: groups with equal rewards add only their tokens to the denominator)."""
    return True
