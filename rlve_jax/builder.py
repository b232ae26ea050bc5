"""Wiring: a validated config -> the components of a training run -> a Trainer.

The order is the point: the environments are resolved and the memory plan is checked from the model's
shape alone, before any weight is read; then the policy is loaded and each component gets its config
section as keyword arguments. A forker swaps a component here, not inside the loop.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Sequence

import ml_collections

from rlve_jax import plan
from rlve_jax.evaluation.evaluate import HeldoutEval
from rlve_jax.generation.generator import make_generator
from rlve_jax.gym import registry
from rlve_jax.gym.pool import EnvPool
from rlve_jax.gym import scheduler as gym_scheduler
from rlve_jax.gym.scheduler import AdaptiveScheduler
from rlve_jax.models.model import ModelConfig
from rlve_jax.models.policy import build_policy, check_model_config, load_tokenizer, model_config_of
from rlve_jax.rl.async_collector import AsyncCollector
from rlve_jax.rl.collector import Collector
from rlve_jax.rl.learner import Learner
from rlve_jax.rl.warm_start import warm_start
from rlve_jax.runtime import distributed, sharding
from rlve_jax.runtime.checkpoint import Checkpointer
from rlve_jax.runtime.metrics import MetricsWriter, wandb_writer
from rlve_jax.trainer import Trainer

log = logging.getLogger(__name__)


def make_scheduler(scheduler: ml_collections.ConfigDict, env_names: Sequence[str], *, samples_per_prompt: int,
                   seed: int, max_levels: dict[str, int | None] | None = None) -> AdaptiveScheduler:
    """The configured scheduler; `max_levels` are the environments' top levels (never promoted past)."""
    return gym_scheduler.make_scheduler(
        scheduler.kind, env_names, initial_difficulty=scheduler.initial_difficulty, window=scheduler.window,
        promote_threshold=scheduler.promote_threshold, min_samples=scheduler.min_prompts * samples_per_prompt,
        static_lo=scheduler.static_lo, static_hi=scheduler.static_hi, seed=seed, max_levels=max_levels)


def check_fits(config: ml_collections.ConfigDict, model_config: ModelConfig) -> None:
    """The batch layout on the mesh and the memory plan, from shapes alone."""
    mesh, _ = sharding.make_meshes(config.mesh.data, config.mesh.fsdp, config.mesh.tensor,
                                   config.mesh.sampler_tensor or config.mesh.tensor, config.mesh.rollout_devices)
    data_parallel = mesh.shape["data"] * mesh.shape["fsdp"]
    if config.train.micro_batch_size % data_parallel:
        raise ValueError(f"train.micro_batch_size={config.train.micro_batch_size} must be a multiple of the "
                         f"{data_parallel} data-parallel devices (mesh.data x mesh.fsdp)")
    plan.largest_micro_batch(config, data_parallel)  # a token budget must hold a longest row per device
    planned = plan.check(config, model_config)
    if planned is not None:
        log.info("%s", planned.table())


def build_trainer(config: ml_collections.ConfigDict, workdir: str | Path) -> Trainer:
    """Every component of a training run, wired; `config` was validated by the caller (defaults.validate)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    env_names = registry.resolve(config.env.collection)
    envs = dict(zip(env_names, registry.make_all(env_names)))  # fails listing what is missing
    check_model_config(config.model)
    tokenizer, prompt_format = load_tokenizer(config.tokenizer, model_path=config.model.path, env_names=env_names,
                                              workdir=workdir)
    model_config = model_config_of(config.model, tokenizer)
    check_fits(config, model_config)  # before any weight is read: a config that cannot fit fails in seconds
    policy = build_policy(model_config, tokenizer, prompt_format, mesh=config.mesh, model_path=config.model.path,
                          seed=config.seed, lora=config.model.lora)
    rollout = config.rollout
    learner = Learner(policy, optim=config.optim, loss=config.loss, train=config.train, rollout=rollout,
                      reward_key=config.env.reward_key)
    scheduler = make_scheduler(config.scheduler, env_names, samples_per_prompt=rollout.samples_per_prompt,
                               seed=config.seed, max_levels={name: env.max_difficulty for name, env in envs.items()})
    pool = EnvPool(workers=config.env.workers, timeout_s=config.env.timeout_s,
                   memory_limit_mb=config.env.memory_limit_mb)
    # Sized now, with the parameters and optimizer state resident: a KV budget too small fails here.
    generator = make_generator(rollout.engine, policy, max_prompt_tokens=rollout.max_prompt_tokens,
                               max_new_tokens=rollout.max_response_tokens,
                               cache_budget_tokens=rollout.cache_budget_tokens or None,
                               segment_steps=rollout.segment_steps)
    collector = Collector(policy, pool, scheduler, generator, env_names=env_names, rollout=rollout, seed=config.seed,
                          reward_key=config.env.reward_key, max_failure_share=config.env.max_failure_share)
    # Split meshes: the next step's rollouts are collected while the learner updates (train.max_staleness).
    pipeline = AsyncCollector(collector, policy, config.train.max_staleness) if config.mesh.rollout_devices else None
    metrics = MetricsWriter(workdir, config.log.tensorboard, enabled=distributed.is_primary(),
                            wandb=wandb_writer(config, workdir, distributed.is_primary()))
    warm = config.warm_start
    warm_up = (functools.partial(warm_start, policy, pool, envs, metrics, steps=warm.steps,
                                 batch_size=warm.batch_size, lr=warm.lr, max_difficulty=warm.max_difficulty,
                                 seed=config.seed, max_failure_share=config.env.max_failure_share,
                                 progress=config.log.progress)
               if warm.steps else None)
    hooks = [HeldoutEval(policy, pool, config)] if config.eval.every > 0 else []
    return Trainer(env_names=env_names, scheduler=scheduler, pool=pool, collector=collector, learner=learner,
                   checkpointer=Checkpointer(workdir, config.checkpoint.every, config.checkpoint.keep),
                   metrics=metrics, workdir=workdir, steps=config.steps, run_config=config.to_dict(),
                   progress=config.log.progress, warm_start=warm_up, hooks=hooks, pipeline=pipeline)
