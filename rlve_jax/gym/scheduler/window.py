"""The paper's windows: the adaptive controller (RLVE's rule) and the static baseline.

AdaptiveScheduler follows the original RLVEManager (rlve_reference.md section b):
each environment has an upper level h (never decreasing) and draws levels uniformly
from the window [max(0, h - W + 1), h]; only rollouts at level h are counted; once an
environment has at least `min_samples` of them, h goes up by one if their accuracy is
>= the threshold, and the counters reset either way.
No environment is ever promoted past its top level (`Environment.max_difficulty`, the highest
level it generates within the pool's budgets): there it stays, and the scheduler logs it once.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from typing import Iterable, Mapping, Sequence

from rlve_jax.gym.scheduler.base import (PAPER, Draw, Rollout, SchedulerSettings, first_problem_seed, register,
                                         rng_state_from_json, rng_state_to_json)

log = logging.getLogger(__name__)


@dataclasses.dataclass
class _Tally:
    accuracy_sum: float = 0.0
    num_samples: int = 0


@register("adaptive")
class AdaptiveScheduler:
    """Per-environment sliding difficulty windows that climb as the policy masters level h."""

    @classmethod
    def from_settings(cls, settings: SchedulerSettings, env_names: Sequence[str],
                      max_levels: Mapping[str, int | None] | None = None) -> "AdaptiveScheduler":
        return cls(env_names, initial_difficulty=settings.initial_difficulty, window=settings.window,
                   promote_threshold=settings.promote_threshold, min_samples=settings.min_samples, seed=settings.seed,
                   max_levels=max_levels)

    def __init__(self, env_names: Sequence[str], initial_difficulty: int = PAPER.initial_difficulty,
                 window: int = PAPER.window, promote_threshold: float = PAPER.promote_threshold,
                 min_samples: int = PAPER.min_samples, seed: int = PAPER.seed,
                 max_levels: Mapping[str, int | None] | None = None):
        if not env_names:
            raise ValueError("AdaptiveScheduler needs at least one environment")
        if len(set(env_names)) != len(env_names):
            raise ValueError(f"duplicate environments in {list(env_names)}")
        if window < 1 or min_samples < 1 or initial_difficulty < 0:
            raise ValueError(f"need window >= 1, min_samples >= 1, initial_difficulty >= 0; "
                             f"got {window=}, {min_samples=}, {initial_difficulty=}")
        self.env_names = list(env_names)
        self.window, self.promote_threshold, self.min_samples = window, promote_threshold, min_samples
        # Each environment's top level (None: no known limit); not state, it comes from the environments.
        self.max_levels = {name: (max_levels or {}).get(name) for name in self.env_names}
        self.upper = self._capped({name: initial_difficulty for name in self.env_names}, "the initial level")
        self.tally = {name: _Tally() for name in self.env_names}
        # Problem seeds first, first + 1, ...: every process holds the same scheduler and makes the same draws
        # (each generates its own share of them), so seeds stay unique on any number of hosts.
        self.problem_seed = first_problem_seed(seed)
        self.rng = random.Random(seed)

    def _capped(self, upper: dict[str, int], what: str) -> dict[str, int]:
        """Levels lowered to each environment's top level (with a warning where that changes one)."""
        capped = {}
        for env, h in upper.items():
            top = self.max_levels.get(env)
            if top is not None and h > top:
                log.warning("%s: %s %d is above its top level %d; using %d", env, what, h, top, top)
                h = top
            capped[env] = h
        return capped

    def topped_out(self, env: str) -> bool:
        """True when `env` sits at its top level (it will not be promoted again)."""
        top = self.max_levels.get(env)
        return top is not None and self.upper[env] >= top

    def window_of(self, env: str) -> tuple[int, int]:
        """The inclusive level range drawn from for `env`."""
        h = self.upper[env]
        return max(0, h - self.window + 1), h

    def sample(self) -> Draw:
        """Draw an environment uniformly, a level uniformly in its window, and the next seed."""
        env = self.rng.choice(self.env_names)
        lo, hi = self.window_of(env)
        draw = Draw(env, self.rng.randint(lo, hi), self.problem_seed)
        self.problem_seed += 1  # advanced on every attempt, as in the original
        return draw

    def update(self, rollouts: Iterable[Rollout]) -> dict[str, int]:
        """Count one step's rollouts (all generated groups) and promote; returns {env: new h}."""
        for rollout in rollouts:
            if rollout.env in self.tally and rollout.difficulty == self.upper[rollout.env]:
                tally = self.tally[rollout.env]
                tally.accuracy_sum += rollout.accuracy
                tally.num_samples += 1
        promoted = {}
        for env, tally in self.tally.items():
            if tally.num_samples >= self.min_samples:
                if tally.accuracy_sum / tally.num_samples >= self.promote_threshold and not self.topped_out(env):
                    self.upper[env] += 1
                    promoted[env] = self.upper[env]
                    if self.topped_out(env):
                        log.info("%s reached its top level %d: no promotion past it", env, self.upper[env])
                self.tally[env] = _Tally()
        return promoted

    def levels(self) -> dict[str, int]:
        """h, the top of each environment's window."""
        return dict(self.upper)

    def describe(self, env: str) -> dict:
        """The window and the verdicts counted at h since the last promotion check."""
        tally = self.tally[env]
        lo, hi = self.window_of(env)
        return {"difficulty": hi, "window": [lo, hi], "samples_at_h": tally.num_samples,
                "accuracy_at_h": tally.accuracy_sum / tally.num_samples if tally.num_samples else None}

    def state_dict(self) -> dict:
        """JSON-serialisable state: levels, counters, seed counter and the draw RNG."""
        return {
            "kind": "adaptive",
            "upper": dict(self.upper),
            "tally": {env: dataclasses.asdict(t) for env, t in self.tally.items()},
            "problem_seed": self.problem_seed,
            "rng": rng_state_to_json(self.rng),
        }

    def load_state_dict(self, state: dict) -> None:
        if state.get("kind") != "adaptive" or set(state["upper"]) != set(self.env_names):
            raise ValueError("scheduler state does not match this scheduler's kind or environment list")
        self.upper = self._capped({env: int(h) for env, h in state["upper"].items()}, "the checkpoint's level")
        self.tally = {env: _Tally(**t) for env, t in state["tally"].items()}
        self.problem_seed = int(state["problem_seed"])
        self.rng.setstate(rng_state_from_json(state["rng"]))


@register("static")
class StaticScheduler(AdaptiveScheduler):
    """The paper's static baseline: every environment draws levels uniformly from [lo, hi]."""

    @classmethod
    def from_settings(cls, settings: SchedulerSettings, env_names: Sequence[str],
                      max_levels: Mapping[str, int | None] | None = None) -> "StaticScheduler":
        return cls(env_names, lo=settings.static_lo, hi=settings.static_hi, seed=settings.seed, max_levels=max_levels)

    def __init__(self, env_names: Sequence[str], lo: int = PAPER.static_lo, hi: int = PAPER.static_hi,
                 seed: int = PAPER.seed, max_levels: Mapping[str, int | None] | None = None):
        """An environment whose top level is below `hi` draws from the `hi - lo + 1` levels below its top."""
        if not 0 <= lo <= hi:
            raise ValueError(f"StaticScheduler needs 0 <= lo <= hi, got {lo=}, {hi=}")
        super().__init__(env_names, initial_difficulty=hi, window=hi - lo + 1, seed=seed, max_levels=max_levels)

    def update(self, rollouts: Iterable[Rollout]) -> dict[str, int]:
        """The window never moves."""
        return {}

    def state_dict(self) -> dict:
        return {**super().state_dict(), "kind": "static"}

    def load_state_dict(self, state: dict) -> None:
        if state.get("kind") != "static":
            raise ValueError("scheduler state does not match this scheduler's kind or environment list")
        super().load_state_dict({**state, "kind": "adaptive"})
