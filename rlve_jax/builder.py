"""Wiring: a validated config -> its sections as frozen settings -> the components of a training run -> a Trainer.

The order is the point: the environments are resolved and the memory plan is checked from the model's
shape alone, before any weight is read; then the policy is loaded and each component gets its settings.
The config stops here (defaults.settings): no component reads it. A forker swaps a component here, not inside
the loop.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import ml_collections

from rlve_jax import plan
from rlve_jax.defaults import settings as settings_of
from rlve_jax.evaluation.evaluate import HeldoutEval
from rlve_jax.generation.generator import make_generator
from rlve_jax.gym import registry
from rlve_jax.gym.pool import EnvPool
from rlve_jax.models.policy import load_policy
from rlve_jax.rl.async_collector import AsyncCollector
from rlve_jax.rl.collector import Collector
from rlve_jax.rl.learner import Learner
from rlve_jax.rl.warm_start import warm_start
from rlve_jax.runtime import distributed
from rlve_jax.runtime.checkpoint import Checkpointer
from rlve_jax.runtime.metrics import MetricsWriter, StepLog, wandb_writer
from rlve_jax.trainer import Trainer


def build_trainer(config: ml_collections.ConfigDict, workdir: str | Path) -> Trainer:
    """Every component of a training run, wired; `config` was validated by the caller (defaults.validate)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    s = settings_of(config)
    env_names = registry.resolve(config.env.collection)
    envs = dict(zip(env_names, registry.make_all(env_names)))  # fails listing what is missing
    # The memory plan runs on the model's shape, before any weight is read: a config that cannot fit fails in seconds.
    policy = load_policy(s.model, s.tokenizer, s.mesh, seed=s.seed, env_names=env_names, workdir=workdir,
                         check=functools.partial(plan.check, config))
    learner = Learner(policy, s.learner)
    scheduler = s.scheduler.build(env_names, {name: env.max_difficulty for name, env in envs.items()})
    pool = EnvPool(**dataclasses.asdict(s.pool))
    # Sized now, with the parameters and optimizer state resident: a KV budget too small fails here.
    sampling = s.collector.sampling
    generator = make_generator(s.generator.engine, policy, max_prompt_tokens=sampling.max_prompt_tokens,
                               max_new_tokens=sampling.max_new_tokens, cache_budget_tokens=sampling.cache_budget_tokens,
                               segment_steps=s.generator.segment_steps)
    batches = Collector(policy, pool, scheduler, generator, env_names=env_names, settings=s.collector)
    if s.mesh.rollout_devices:  # split meshes: the next step's batch is collected while the learner updates
        batches = AsyncCollector(batches, policy, s.max_staleness)
    primary = distributed.is_primary()
    run_config = config.to_dict()
    metrics = MetricsWriter(workdir, s.log.tensorboard, enabled=primary,
                            wandb=wandb_writer(s.log, run_config, workdir, primary))
    warm = (functools.partial(warm_start, policy, pool, envs, metrics, settings=s.warm_start, seed=s.seed,
                              max_failure_share=s.collector.max_failure_share, progress=s.log.progress)
            if s.warm_start.steps else None)
    trainer = Trainer(env_names=env_names, scheduler=scheduler, pool=pool, batches=batches, learner=learner,
                      checkpointer=Checkpointer(workdir, config.checkpoint.keep), metrics=metrics, workdir=workdir,
                      steps=s.steps, run_config=run_config, warm_start=warm)
    if config.eval.every > 0:  # shares the pool and the rollout devices
        trainer.add_hook(HeldoutEval(policy, pool, s.eval_sampling, s.generator, problems=config.eval.problems,
                                     batch_prompts=config.eval.batch_prompts, seed=s.seed),
                         every=config.eval.every, exclusive=True)
    trainer.add_hook(StepLog(metrics, s.steps, s.log.progress))
    trainer.add_hook(lambda info: trainer.save(), every=config.checkpoint.every, at_last=True)
    return trainer
