"""The RLVE training loop: collect a step's rollouts -> update the scheduler -> update the policy ->
hooks (in-training evaluation) -> checkpoint. Built and wired by rlve_jax/builder.py.

Every process (one per host, see rlve_jax/runtime/distributed.py) runs this same loop. The collector
leaves every process with the same records of the step's groups, so the scheduler update agrees
everywhere, and the kept groups become one global batch on the training mesh, in draw order:
the result does not depend on the process count.

With mesh.rollout_devices > 0 an AsyncCollector (rlve_jax/rl/async_collector.py) collects step k+1's batch on
the rollout sub-mesh while the learner updates on step k's (train.max_staleness steps of weight lag).
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Callable, Sequence

import jax
from flax import nnx

from rlve_jax.gym.pool import EnvPool, PoolStats
from rlve_jax.gym.scheduler import AdaptiveScheduler, Rollout
from rlve_jax.rl.async_collector import AsyncCollector
from rlve_jax.rl.collector import Collector, rollout_metrics
from rlve_jax.rl.learner import Learner
from rlve_jax.runtime import distributed, sharding
from rlve_jax.runtime.checkpoint import Checkpointer, StopRequest
from rlve_jax.runtime.metrics import MetricsWriter

log = logging.getLogger(__name__)

Hook = Callable[[int], dict]  # called after each step with the new step count; returns metrics to log


class Trainer:
    """Runs the loop over wired components; owns the step count and the run's saved state."""

    def __init__(self, *, env_names: Sequence[str], scheduler: AdaptiveScheduler, pool: EnvPool,
                 collector: Collector, learner: Learner, checkpointer: Checkpointer, metrics: MetricsWriter,
                 workdir: Path, steps: int, run_config: dict, progress: bool = True,
                 warm_start: Callable[[], None] | None = None, hooks: Sequence[Hook] = (),
                 pipeline: AsyncCollector | None = None):
        self.env_names, self.scheduler, self.pool = list(env_names), scheduler, pool
        self.collector, self.learner, self.checkpointer, self.metrics = collector, learner, checkpointer, metrics
        self.pipeline = pipeline  # one-step-off-policy: wraps `collector`; None: collect in the loop
        self.policy = learner.policy
        self.workdir, self.steps, self.run_config, self.progress = Path(workdir), steps, run_config, progress
        self.warm_start, self.hooks = warm_start, list(hooks)
        self.step = 0

    # -- state --------------------------------------------------------------
    def meta(self) -> dict:
        return {"step": self.step, "seed": self.run_config["seed"], "scheduler": self.scheduler.state_dict(),
                "pool_stats": self.pool.stats.as_dict(), "config": self.run_config,
                "collector": (self.pipeline or self.collector).state_dict()}  # the pipeline's: its batch ahead

    def save(self) -> None:
        self.checkpointer.save(self.step, self.policy.params, self.learner.opt_state, self.meta())
        if jax.process_count() > 1:
            self.check_in_sync()

    def check_in_sync(self) -> None:
        """Every process must hold the same step, scheduler state and sampler weights: process 0 alone
        writes the checkpoint's JSON, and every process samples with its own copy of the weights."""
        state = json.dumps({"step": self.step, "scheduler": self.scheduler.state_dict()}, sort_keys=True)
        scheduler = distributed.assert_same(state, f"the scheduler state at step {self.step}")
        weights = f"{int(sharding.fingerprint(nnx.state(self.policy.sampler_model(), nnx.Param))):08x}"
        distributed.assert_same(weights, f"the sampler weights at step {self.step}")
        log.info("process %d of %d in sync at step %d: scheduler state %s, sampler weights %s",
                 jax.process_index(), jax.process_count(), self.step, scheduler, weights)

    def maybe_resume(self) -> bool:
        """Restore the latest checkpoint in the workdir, if any."""
        latest = self.checkpointer.latest_step()
        if latest is None:
            return False
        self.policy.params, self.learner.opt_state, meta = self.checkpointer.restore(latest, self.policy.params,
                                                                                      self.learner.opt_state)
        self.scheduler.load_state_dict(meta["scheduler"])
        (self.pipeline or self.collector).load_state_dict(meta.get("collector", {}))
        self.pool.stats = PoolStats.from_dict(meta.get("pool_stats", {}))
        self.step = meta["step"]
        self.metrics.resume_at(self.step)
        log.info("resumed from step %d in %s", self.step, self.workdir)
        return True

    # -- the loop -----------------------------------------------------------
    def train_one_step(self) -> dict[str, float]:
        start = time.perf_counter()
        collection = self.pipeline.take(self.step) if self.pipeline else self.collector.collect(self.step)
        records = collection.records
        promoted = self.scheduler.update(
            Rollout(self.env_names[env], int(difficulty), float(accuracy))
            for env, difficulty, accuracies in zip(records.env, records.difficulty, records.accuracy)
            for accuracy in accuracies)
        metrics = {**rollout_metrics(records, self.env_names, collection.stats), **collection.failures}
        if self.pipeline and self.step + 1 < self.steps:  # max_staleness 1: drawn with these weights, during the update
            self.pipeline.start(self.step + 1, version=self.step)
        train_start = time.perf_counter()
        if len(collection.kept):
            metrics.update(self.learner.update(collection))
        metrics["time/train"] = time.perf_counter() - train_start
        for env, h in self.scheduler.upper.items():
            metrics[f"difficulty/{env}"] = h
        metrics["scheduler/promotions"] = len(promoted)
        self.step += 1
        if self.pipeline and self.step < self.steps:  # max_staleness 0: drawn with the new weights
            self.pipeline.start(self.step, version=self.step)
        if self.pipeline and self.hooks:  # an evaluation shares the pool and the rollout mesh
            self.pipeline.wait()
        for hook in self.hooks:
            metrics.update(hook(self.step))
        if self.pipeline:
            metrics.update(self.pipeline.take_seconds())
        metrics["time/step"] = time.perf_counter() - start
        return metrics

    def run(self) -> None:
        """Train until `steps`, checkpointing; SIGTERM saves and exits cleanly."""
        if not self.maybe_resume():
            self.metrics.start_fresh()  # a killed attempt before the first checkpoint leaves nothing behind
            if self.warm_start is not None:
                self.warm_start()
            self.save()
            self.metrics.write(0, {f"difficulty/{env}": h for env, h in self.scheduler.upper.items()})
        progress = self.metrics.progress(self.step, self.steps, enabled=self.progress)
        with StopRequest() as stop:
            while self.step < self.steps:
                metrics = self.train_one_step()
                self.metrics.write(self.step, metrics)
                progress.update(self.step, metrics)
                stopping = distributed.any_process(stop.requested)  # every process stops at the same step
                if self.checkpointer.should_save(self.step) or stopping or self.step == self.steps:
                    self.save()
                if stopping:
                    log.warning("stop requested: saved step %d, exiting", self.step)
                    break
        progress.close()
        if distributed.is_primary():
            self.report()

    def report(self) -> None:
        """The final table of each environment's level h and recent accuracy; the plots."""
        from rlve_jax import plot

        recent = self.metrics.recent_accuracy()
        lines = [f"{'environment':40s} {'h':>3s} {'accuracy (last steps)':>22s}"]
        for env in self.env_names:
            acc = recent.get(env)
            lines.append(f"{env:40s} {self.scheduler.upper[env]:3d} {'-' if acc is None else f'{acc:.3f}':>22s}")
        table = "\n".join(lines)
        print(table)
        (self.workdir / "final_levels.txt").write_text(table + "\n")
        written = plot.render(self.workdir)
        print(f"plots: {', '.join(str(p) for p in written)}")

    def close(self) -> None:
        if self.pipeline:
            self.pipeline.close()
        self.pool.close()
        self.checkpointer.close()
        self.metrics.close()
