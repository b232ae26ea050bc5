"""The RLVE training loop: take a step's batch -> update the scheduler -> update the policy -> hooks (the
in-training evaluation, the step's metrics, the checkpoint), each with its period. Built and wired by
rlve_jax/builder.py.

Every process (one per host, see rlve_jax/runtime/distributed.py) runs this same loop. The batch source leaves
every process with the same records of the step's groups, so the scheduler update agrees everywhere, and the
kept groups become one global batch on the training mesh, in draw order: the result does not depend on the
process count. Whether batches are collected in the loop (rl/collector.Collector) or ahead, on a rollout mesh of
their own (rl/async_collector.AsyncCollector), is the batch source's business.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import jax
from flax import nnx

from rlve_jax.gym.pool import EnvPool, PoolStats
from rlve_jax.gym.scheduler import Scheduler
from rlve_jax.rl.collector import BatchSource, rollout_metrics
from rlve_jax.rl.learner import Learner
from rlve_jax.runtime import distributed, sharding
from rlve_jax.runtime.checkpoint import Checkpointer, StopRequest, TrainState
from rlve_jax.runtime.metrics import MetricsWriter

log = logging.getLogger(__name__)


class StepInfo(NamedTuple):
    """What a hook sees after a step."""

    step: int  # steps done
    state: TrainState  # the learner's
    metrics: dict[str, float]  # the step's, with those of the hooks that ran before
    last: bool  # the run's last step: its final one, or a stop was requested


@dataclasses.dataclass(frozen=True)
class Hook:
    """A periodic action (Levanter's add_hook(fn, every=N)): fn(info) after every step that `every` divides; it
    may return metrics for the step's record."""

    fn: Callable[[StepInfo], dict[str, float] | None]
    every: int
    at_last: bool = False  # also after the run's last step
    exclusive: bool = False  # uses the pool and the rollout devices: the batch source settles first


class Trainer:
    """Runs the loop over wired parts: the batch source, the scheduler, the learner (which owns the train state)."""

    def __init__(self, *, env_names: Sequence[str], scheduler: Scheduler, pool: EnvPool, batches: BatchSource,
                 learner: Learner, checkpointer: Checkpointer, metrics: MetricsWriter, workdir: Path, steps: int,
                 run_config: dict[str, Any], warm_start: Callable[[Any], Any] | None = None):
        self.env_names, self.scheduler, self.pool, self.batches = list(env_names), scheduler, pool, batches
        self.learner, self.checkpointer, self.metrics = learner, checkpointer, metrics
        self.policy = learner.policy
        self.workdir, self.steps, self.run_config, self.warm_start = Path(workdir), steps, run_config, warm_start
        self.hooks: list[Hook] = []

    def add_hook(self, fn: Callable[[StepInfo], dict[str, float] | None], every: int = 1, *, at_last: bool = False,
                 exclusive: bool = False) -> None:
        self.hooks.append(Hook(fn, every, at_last, exclusive))

    @property
    def step(self) -> int:
        return self.learner.state.step

    def save(self) -> None:
        """The learner's state and beside it the scheduler's, the pool's counters and the batch source's."""
        self.checkpointer.save(self.learner.state, {
            "seed": self.run_config["seed"], "scheduler": self.scheduler.state_dict(),
            "pool_stats": self.pool.stats.as_dict(), "config": self.run_config, "collector": self.batches.state_dict()})
        if jax.process_count() > 1:
            self.check_in_sync()

    def check_in_sync(self) -> None:
        """Every process must hold the same step, scheduler state and sampler weights: process 0 alone
        writes the checkpoint's JSON, and every process samples with its own copy of the weights."""
        state = json.dumps({"step": self.step, "scheduler": self.scheduler.state_dict()}, sort_keys=True)
        scheduler = distributed.assert_same(state, f"the scheduler state at step {self.step}")
        sampler = self.policy.sampler_model(self.learner.state.params)
        weights = f"{int(sharding.fingerprint(nnx.state(sampler, nnx.Param))):08x}"
        distributed.assert_same(weights, f"the sampler weights at step {self.step}")
        log.info("process %d of %d in sync at step %d: scheduler state %s, sampler weights %s",
                 jax.process_index(), jax.process_count(), self.step, scheduler, weights)

    def start(self) -> None:
        """Resume from the workdir's latest checkpoint, or start fresh: the policy's weights, warm-started."""
        latest = self.checkpointer.latest_step()
        if latest is None:
            self.metrics.start_fresh()  # a killed attempt before the first checkpoint leaves nothing behind
            params = self.policy.params  # the weights the policy was built with, warm-started
            self.learner.start(params if self.warm_start is None else self.warm_start(params))
            self.save()
            self.metrics.write(0, {f"difficulty/{env}": h for env, h in self.scheduler.levels().items()})
            return
        self.learner.state, meta = self.checkpointer.restore(latest, self.learner.state)
        self.scheduler.load_state_dict(meta["scheduler"])
        self.batches.load_state_dict(meta.get("collector", {}))
        self.pool.stats = PoolStats.from_dict(meta.get("pool_stats", {}))
        self.metrics.resume_at(self.step)
        log.info("resumed from step %d in %s", self.step, self.workdir)

    def train_one_step(self) -> dict[str, float]:
        start, step = time.perf_counter(), self.step
        collection = self.batches.take(step, self.learner.state.params)
        promoted = self.scheduler.update(collection.rollouts(self.env_names))
        metrics = {**rollout_metrics(collection.records, self.env_names, collection.stats), **collection.failures}
        self.prefetch(step + 1)  # a batch source that overlaps collects the next batch with these weights ...
        train_start = time.perf_counter()
        metrics.update(self.learner.update(collection))
        metrics["time/train"] = time.perf_counter() - train_start
        metrics.update({f"difficulty/{env}": h for env, h in self.scheduler.levels().items()})
        metrics["scheduler/promotions"] = len(promoted)
        self.prefetch(step + 1)  # ... or with the new ones (rl/async_collector.py: train.max_staleness)
        metrics.update(self.batches.seconds())
        metrics["time/step"] = time.perf_counter() - start
        return metrics

    def prefetch(self, step: int) -> None:
        if step < self.steps:
            self.batches.ahead(step, self.learner.state.params, version=self.step)

    def run_hooks(self, metrics: dict[str, float], last: bool) -> None:
        for hook in self.hooks:
            if self.step % hook.every == 0 or (last and hook.at_last):
                if hook.exclusive:
                    self.batches.settle()
                metrics.update(hook.fn(StepInfo(self.step, self.learner.state, metrics, last)) or {})

    def run(self) -> None:
        """Train until `steps`; SIGTERM stops every process after the same step (the at_last hooks save it)."""
        self.start()
        with StopRequest() as stop:
            while self.step < self.steps:
                metrics = self.train_one_step()
                stopping = distributed.any_process(stop.requested)
                self.run_hooks(metrics, last=stopping or self.step == self.steps)
                if stopping:
                    log.warning("stop requested: saved step %d, exiting", self.step)
                    break
        if distributed.is_primary():
            report(self.workdir, self.env_names, self.scheduler, self.metrics)

    def close(self) -> None:
        for part in (self.batches, self.pool, self.checkpointer, self.metrics):
            part.close()


def report(workdir: Path, env_names: Sequence[str], scheduler: Scheduler, metrics: MetricsWriter) -> None:
    """The final table of each environment's level (h; the expected level for learnability, thompson) and recent
    accuracy; the plots."""
    from rlve_jax import plot

    recent, levels = metrics.recent_accuracy(), scheduler.levels()
    lines = [f"{'environment':40s} {'h':>3s} {'accuracy (last steps)':>22s}"]
    for env in env_names:
        acc = recent.get(env)
        lines.append(f"{env:40s} {levels[env]:3g} {'-' if acc is None else f'{acc:.3f}':>22s}")
    table = "\n".join(lines)
    print(table)
    (workdir / "final_levels.txt").write_text(table + "\n")
    written = plot.render(workdir)
    print(f"plots: {', '.join(str(p) for p in written)}")
