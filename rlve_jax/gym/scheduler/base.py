"""What every curriculum shares: its settings, the registry of kinds, the draw and verdict records, the Scheduler
protocol, the problem seeds' blocks and the draw RNG's JSON form.

Problem seeds: a run with seed s draws problem seeds s * SEED_STRIDE + 0, 1, 2, ... (other streams, such as
the warm start's, sit at fixed offsets inside that block), so runs with different seeds never share a
problem stream, and every process of one run draws the same seeds.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Callable, Iterable, Mapping, NamedTuple, Protocol, Sequence

SEED_STRIDE = 1 << 48  # problem seeds per run seed: far more than any run draws


def first_problem_seed(run_seed: int) -> int:
    """The first problem seed of a run with seed `run_seed` (0 for seed 0)."""
    if run_seed < 0:
        raise ValueError(f"run seeds are >= 0, got {run_seed}")
    return run_seed * SEED_STRIDE


@dataclasses.dataclass(frozen=True)
class SchedulerSettings:
    """The scheduler's settings, with the paper's values (rlve_reference.md section b) and the other curricula's
    defaults: the one place they are written (rlve_jax/defaults.py's scheduler section and the service's flags start
    from them)."""

    kind: str = "adaptive"  # a registered curriculum (KINDS); the RLVE controller by default
    initial_difficulty: int = 0
    window: int = 4  # levels drawn from [max(0, h - window + 1), h]
    promote_threshold: float = 0.9  # accuracy at h needed to move h up
    min_samples: int = 128  # rollouts at h before a check: scheduler.min_prompts x rollout.samples_per_prompt (8 x 16)
    static_lo: int = 0  # the static baseline's level range
    static_hi: int = 4
    # learnability and thompson (cells.py):
    max_level: int = 9  # cells: each environment's levels 0..min(its top level, max_level)
    decay: float = 0.95  # evidence kept per update (a training step, a verify request): ~1 / (1 - decay) steps' worth
    prior_count: float = 2.0  # pseudo-observations at even odds per cell: Laplace's rule, a Beta(1, 1) prior
    explore: float = 0.05  # learnability: the share of draws spread evenly over an environment's cells
    seed: int = 0  # the run's seed: the draws' RNG and the problem seeds' block

    def build(self, env_names: Sequence[str], max_levels: Mapping[str, int | None] | None = None) -> "Scheduler":
        """The scheduler of this kind over the environments; `max_levels` are their top levels (never passed)."""
        if self.kind not in SCHEDULERS:
            raise ValueError(f"scheduler kind must be one of {tuple(SCHEDULERS)}, got {self.kind!r}")
        return SCHEDULERS[self.kind].from_settings(self, env_names, max_levels)


PAPER = SchedulerSettings()

SCHEDULERS: dict[str, type["Scheduler"]] = {}  # kind -> class, in registration order (window.py, then cells.py)


def register(kind: str) -> Callable[[type], type]:
    """A class decorator: the curriculum chosen by `scheduler.kind=<kind>` (and the service's --scheduler); the class's
    `kind` is that name."""
    def add(cls: type) -> type:
        if kind in SCHEDULERS:
            raise ValueError(f"scheduler kind {kind!r} is registered twice")
        SCHEDULERS[kind], cls.kind = cls, kind
        return cls

    return add


class Draw(NamedTuple):
    """One problem to generate."""

    env: str
    difficulty: int
    seed: int


class Rollout(NamedTuple):
    """What the scheduler needs to know about one verified response."""

    env: str
    difficulty: int
    accuracy: float  # 0/1 (the verdict's accuracy)
    # The responses sampled together for one problem share a group within one update: the trainer's record row, the
    # service's problem id (the G responses to a problem sent in one verify request). None: a group of its own.
    group: int | None = None


class Scheduler(Protocol):
    """A curriculum: where the next problem comes from, and what it learns from each training step's verdicts.

    Every process of a run holds the same scheduler, draws the same problems and is updated with the same
    all-gathered verdicts; the gym service holds one too and updates it once per verify request.
    """

    env_names: list[str]
    max_levels: dict[str, int | None]  # each environment's top level (None: no known limit)
    problem_seed: int  # the next draw's

    @classmethod
    def from_settings(cls, settings: SchedulerSettings, env_names: Sequence[str],
                      max_levels: Mapping[str, int | None] | None = None) -> "Scheduler":
        """The scheduler over `env_names` (their top levels `max_levels`) with the fields of `settings` it reads."""

    def sample(self) -> Draw:
        """The next problem: an environment, a level and the next problem seed (advanced on every draw)."""

    def update(self, rollouts: Iterable[Rollout]) -> dict[str, int]:
        """Learn from one step's verdicts (every generated group's); returns {env: new level} of promotions."""

    def levels(self) -> dict[str, float]:
        """Each environment's level as the trainer logs it (`difficulty/<env>`)."""

    def describe(self, env: str) -> dict:
        """One environment's curriculum state, JSON-serialisable (the service's GET /env/{name})."""

    def state_dict(self) -> dict:
        """JSON-serialisable state, the draw RNG included: an exact resume."""

    def load_state_dict(self, state: dict) -> None: ...


def rng_state_to_json(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def rng_state_from_json(state: list) -> tuple:
    version, internal, gauss = state
    return version, tuple(internal), gauss
