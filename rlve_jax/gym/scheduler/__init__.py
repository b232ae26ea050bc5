"""Curricula as plug-ins: where each problem comes from and how the verdicts move it, chosen by `scheduler.kind` in
the trainer and `--scheduler` in the gym service (the same class, fed the same verdicts, makes the same draws).

    adaptive      RLVE's rule (window.py, the default): a window of levels per environment that climbs
    static        the paper's baseline (window.py): a fixed range of levels
    learnability  levels in proportion to p(1 - p) of their recent success rate (cells.py)
    thompson      Thompson sampling over "a group at this level is informative" (cells.py)

base.py holds what they share: SchedulerSettings (every kind's values, written once), the registry, the Draw and
Rollout records, the Scheduler protocol and the problem seeds' blocks. A package rather than one module because
the registry (base) sits below the samplers that register in it, and both kinds of sampler share base's records:
each file is one thing and nothing imports in a circle. Adding a curriculum: a class with `@register("name")` and
the Scheduler protocol, imported below; its keys in rlve_jax/defaults.py and flags in rlve_jax/gym/serve.py.
"""

from typing import Mapping, Sequence

from rlve_jax.gym.scheduler.base import (PAPER, SCHEDULERS, SEED_STRIDE, Draw, Rollout, Scheduler, SchedulerSettings,
                                         first_problem_seed, register)
from rlve_jax.gym.scheduler.window import AdaptiveScheduler, StaticScheduler  # registers first: KINDS' order
from rlve_jax.gym.scheduler.cells import CellScheduler, LearnabilityScheduler, ThompsonScheduler, steered_draws

KINDS = tuple(SCHEDULERS)  # every registered curriculum: the domain of scheduler.kind and --scheduler
ESTIMATING_KINDS = tuple(kind for kind, cls in SCHEDULERS.items() if issubclass(cls, CellScheduler))  # steerable


def make_scheduler(kind: str, env_names: Sequence[str], *, max_levels: Mapping[str, int | None] | None = None,
                   **settings) -> Scheduler:
    """SchedulerSettings(kind, **settings).build(env_names, max_levels)."""
    return SchedulerSettings(kind, **settings).build(env_names, max_levels)


__all__ = ["PAPER", "SCHEDULERS", "SEED_STRIDE", "KINDS", "ESTIMATING_KINDS", "Draw", "Rollout", "Scheduler",
           "SchedulerSettings", "AdaptiveScheduler", "StaticScheduler", "CellScheduler", "LearnabilityScheduler",
           "ThompsonScheduler", "first_problem_seed", "make_scheduler", "register", "steered_draws"]
