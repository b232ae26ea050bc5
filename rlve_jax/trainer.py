"""The RLVE training loop: collect a step's rollouts (rlve_jax/rl/collector.py) -> update the
scheduler -> DAPO update -> checkpoint.

Every process (one per host, see rlve_jax/runtime/distributed.py) runs this same loop. The collector
leaves every process with the same records of the step's groups, so the scheduler update agrees
everywhere, and the kept groups become one global batch on the training mesh, in draw order:
the result does not depend on the process count. Everything is reproducible from the config
seed: sampling keys are derived from (seed, step, round, draw index), problem draws from the
scheduler's own RNG.
"""

from __future__ import annotations

import functools
import json
import logging
import random
import time
from pathlib import Path
from typing import Iterator, Sequence

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.rl import dapo
from rlve_jax import defaults, plan
from rlve_jax.runtime import distributed, sharding
from rlve_jax.evaluation import evaluate
from rlve_jax.gym import registry
from rlve_jax.runtime.checkpoint import Checkpointer, StopRequest
from rlve_jax.runtime.metrics import MetricsWriter, wandb_writer
from rlve_jax.gym.pool import EnvPool, FailureBudgetExceeded, PoolStats, check_failure_budget
from rlve_jax.rl.batching import (MicroBatch, SequenceBatch, bucket, build_sequences, fixed_micro_batches,
                               padding_fraction, sequence_logprobs, token_budget_micro_batches)
from rlve_jax.rl.collector import Collection, Collector, rank_within, rollout_metrics
from rlve_jax.models.policy import load_policy
from rlve_jax.generation.rollout import Group, answer_completion, eval_settings
from rlve_jax.gym.scheduler import AdaptiveScheduler, Rollout, StaticScheduler
from rlve_jax.rl.train_step import (accumulator_shardings, init_optimizer, learning_rate, logits_tokens, make_accumulate,
                                 make_apply, make_micro_loss, make_optimizer, shardings_of, zero_accumulator)

log = logging.getLogger(__name__)

WARM_START_SEED_OFFSET = 1 << 40  # warm-start problems never share seeds with RL problems


# ---------------------------------------------------------------------------
# The trainer


class Trainer:
    """Owns the model, optimizer, scheduler, pool, sampler settings and the workdir."""

    def __init__(self, config: ml_collections.ConfigDict, workdir: str | Path):
        defaults.validate(config)
        self.config = config
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env_names = registry.resolve(config.env.collection)
        self.envs = dict(zip(self.env_names, registry.make_all(self.env_names)))  # fails listing what is missing
        self.policy = load_policy(config, self.env_names, self.workdir)
        self.model_config = nnx.merge(self.policy.graphdef, self.policy.params, self.policy.rest).config
        data_parallel = self.policy.mesh.shape["data"] * self.policy.mesh.shape["fsdp"]
        if config.train.micro_batch_size % data_parallel:
            raise ValueError(f"train.micro_batch_size={config.train.micro_batch_size} must be a multiple of the "
                             f"{data_parallel} data-parallel devices (mesh.data x mesh.fsdp)")
        plan.largest_micro_batch(config, data_parallel)  # a token budget must hold a longest row per device
        planned = plan.check(config, self.model_config)  # fails here, not hours in, when it cannot fit
        if planned is not None:
            log.info("%s", planned.table())
        self.tx = make_optimizer(config.optim)
        self.opt_state = init_optimizer(self.tx, self.policy.params, self.policy.mesh)
        self.scheduler = make_scheduler(config, self.env_names,
                                        {name: env.max_difficulty for name, env in self.envs.items()})
        self.pool = EnvPool(config.env.workers, config.env.timeout_s, config.env.memory_limit_mb)
        self.checkpointer = Checkpointer(self.workdir, config.checkpoint.every, config.checkpoint.keep)
        self.loss_config = dapo.LossConfig(config.loss.clip_low, config.loss.clip_high, config.loss.tis_clip,
                                           config.loss.aggregation)
        self.collector = Collector(config, self.env_names, self.policy, self.pool, self.scheduler)
        self.step = 0
        self.accumulate, self.apply, self.zero_accumulator = self._make_train_step()
        self.staging_sharding = NamedSharding(self.policy.mesh, P(sharding.BATCH))  # [rows, ...] kept rows
        self.assemble = self._make_assemble()
        self.metrics = MetricsWriter(self.workdir, config.log.tensorboard, enabled=distributed.is_primary(),
                                     wandb=wandb_writer(config, self.workdir, distributed.is_primary()))
        self.eval_problems = (evaluate.heldout_subset(evaluate.load_problems(), config.eval.problems)
                              if config.eval.every > 0 else [])

    # -- state --------------------------------------------------------------
    def meta(self) -> dict:
        return {"step": self.step, "seed": self.config.seed, "scheduler": self.scheduler.state_dict(),
                "pool_stats": self.pool.stats.as_dict(), "config": self.config.to_dict(),
                "collector": self.collector.state_dict()}

    def save(self) -> None:
        self.checkpointer.save(self.step, self.policy.params, self.opt_state, self.meta())
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
        self.policy.params, self.opt_state, meta = self.checkpointer.restore(latest, self.policy.params,
                                                                              self.opt_state)
        self.scheduler.load_state_dict(meta["scheduler"])
        self.collector.load_state_dict(meta.get("collector", {}))
        self.pool.stats = PoolStats.from_dict(meta.get("pool_stats", {}))
        self.step = meta["step"]
        self.metrics.resume_at(self.step)
        log.info("resumed from step %d in %s", self.step, self.workdir)
        return True

    # -- update -------------------------------------------------------------
    def _make_train_step(self) -> tuple:
        """(accumulate, apply, a fresh accumulator): see make_accumulate and make_apply."""
        params, mesh = self.policy.params, self.policy.mesh
        micro_loss = make_micro_loss(self.policy.graphdef, self.policy.rest, self.loss_config,
                                     self.config.rollout.temperature, logits_tokens(self.config, self.model_config))
        acc_shardings = accumulator_shardings(micro_loss, params, mesh)
        zeros = jax.jit(lambda: zero_accumulator(micro_loss, params), out_shardings=acc_shardings)
        return (make_accumulate(micro_loss, acc_shardings), make_apply(self.tx, params, self.opt_state, mesh,
                                                                        learning_rate(self.config.optim)),
                zeros)

    def _make_assemble(self):
        """Staging rows (each process's kept groups) -> one micro-batch [b, T], rows in the given order."""
        @functools.partial(jax.jit, static_argnames="length", out_shardings=NamedSharding(self.policy.mesh,
                                                                                          P(sharding.BATCH)))
        def assemble(staging: SequenceBatch, index: jax.Array, length: int) -> SequenceBatch:
            return SequenceBatch(*(x[index, :length] if x.ndim == 2 else x[index] for x in staging))

        return assemble

    def micro_batches(self, lengths: np.ndarray) -> list[MicroBatch]:
        """The step's sequences (lengths [n] in draw order) as micro-batches: fixed rows and length, or a
        token budget per micro-batch (train.max_tokens_per_micro_batch)."""
        train, mesh = self.config.train, self.policy.mesh
        if train.max_tokens_per_micro_batch:
            return token_budget_micro_batches(lengths, train.max_tokens_per_micro_batch,
                                              mesh.shape["data"] * mesh.shape["fsdp"])
        rows = self.config.rollout.prompts_per_step * self.config.rollout.samples_per_prompt
        return fixed_micro_batches(len(lengths), rows, train.micro_batch_size, bucket(int(np.max(lengths))))

    def update(self, collection: Collection) -> dict[str, float]:
        """One optimiser step on the kept groups.

        Each process packs the kept groups it holds into its rows of a staging array
        (`make_array_from_process_local_data`); every micro-batch gathers its rows from it (the same
        micro-batches on every process: they depend only on the records). Gradients of the loss sums
        accumulate over the micro-batches, whatever their shapes, and are divided once by the batch's
        denominator, so the grouping does not change the loss.
        """
        cfg = self.config
        mine, records, kept = collection.mine, collection.records, collection.kept
        g = cfg.rollout.samples_per_prompt
        owner, slot = records.owner[kept], rank_within(records.owner[kept])  # slot: among the owner's kept
        own = [mine[i] for i in rank_within(records.owner)[kept][owner == jax.process_index()]]
        mesh = self.policy.mesh
        shards = mesh.shape["data"] * mesh.shape["fsdp"] // jax.process_count()  # batch shards per process
        cap = -(-(np.bincount(owner, minlength=jax.process_count()).max() * g + 1) // shards) * shards
        advantages = [a for group in own
                      for a in dapo.group_advantages(self.shaped_rewards(group), g, cfg.loss.normalize_std)]
        lengths = (records.prompt_length[kept][:, None] + records.length[kept]).reshape(-1)  # [n] draw order
        micro_batches = self.micro_batches(lengths)
        local = build_sequences([group.prompt_tokens for group in own for _ in range(g)],
                                [r for group in own for r in group.response_tokens], self.policy.tokenizer.pad_id,
                                [lp for group in own for lp in group.sampler_logprobs], advantages, cap,
                                max(m.length for m in micro_batches))
        staged = jax.process_count() * cap
        staging = SequenceBatch(*(jax.make_array_from_process_local_data(self.staging_sharding, x,
                                                                         (staged, *x.shape[1:])) for x in local))
        place = sharding.process_rows(self.staging_sharding, staged)  # process -> its staging rows, in order
        row_of = np.array([place[q][s * g + j] for q, s in zip(owner, slot) for j in range(g)])  # sequence -> row
        empty = place[0][cap - 1]  # padding: process 0's last row is always empty
        acc = self.zero_accumulator()
        with jax.set_mesh(mesh):
            for micro in micro_batches:
                index = np.where(micro.rows >= 0, row_of[np.maximum(micro.rows, 0)], empty).astype(np.int32)
                acc = self.accumulate(self.policy.params, acc, self.assemble(staging, index, length=micro.length))
        self.policy.params, self.opt_state, metrics = self.apply(self.policy.params, self.opt_state, acc)
        tokens = max(float(metrics["tokens"]), 1.0)
        result = {"train/loss": float(metrics["loss"]), "train/grad_norm": float(metrics["grad_norm"]),
                  "train/learning_rate": float(metrics["learning_rate"]),
                  "train/clip_fraction": float(metrics["clip_fraction"]) / tokens,
                  "train/micro_batches": len(micro_batches),
                  "train/padding_fraction": padding_fraction(lengths, micro_batches)}
        if "tis_weight" in metrics:
            result["train/tis_weight"] = float(metrics["tis_weight"]) / tokens
        if "sampler_logprob_gap" in metrics:
            result["train/sampler_logprob_gap"] = float(metrics["sampler_logprob_gap"]) / tokens
        return result

    def shaped_rewards(self, group: Group) -> np.ndarray:
        """The reward key, plus DAPO's soft overlong penalty when configured."""
        rewards = group.rewards(self.config.env.reward_key)
        if self.config.loss.overlong_buffer:
            lengths = np.array([len(r) for r in group.response_tokens])
            rewards = rewards + dapo.overlong_penalty(lengths, self.config.rollout.max_response_tokens,
                                                      self.config.loss.overlong_buffer)
        return rewards

    # -- the loop -----------------------------------------------------------
    def train_one_step(self) -> dict[str, float]:
        start = time.perf_counter()
        collection = self.collector.collect(self.step)
        records = collection.records
        promoted = self.scheduler.update(
            Rollout(self.env_names[env], int(difficulty), float(accuracy))
            for env, difficulty, accuracies in zip(records.env, records.difficulty, records.accuracy)
            for accuracy in accuracies)
        metrics = {**rollout_metrics(records, self.env_names, collection.stats), **collection.failures}
        train_start = time.perf_counter()
        if len(collection.kept):
            metrics.update(self.update(collection))
        metrics["time/train"] = time.perf_counter() - train_start
        for env, h in self.scheduler.upper.items():
            metrics[f"difficulty/{env}"] = h
        metrics["scheduler/promotions"] = len(promoted)
        self.step += 1
        if self.eval_problems and self.step % self.config.eval.every == 0:
            metrics.update(self.evaluate_heldout())
        metrics["time/step"] = time.perf_counter() - start
        return metrics

    def evaluate_heldout(self) -> dict[str, float]:
        """The in-training evaluation on the fixed held-out subset (the original logged its reward)."""
        start = time.perf_counter()
        summary, _, _ = evaluate.evaluate_problems(
            self.policy, self.pool, self.eval_problems, eval_settings(self.config, 1), self.config.seed,
            batch_prompts=self.config.eval.batch_prompts, progress=False)
        return {"eval/reward": summary["reward"], "eval/accuracy": summary["overall"],
                "time/eval": time.perf_counter() - start}

    def run(self) -> None:
        """Train until config.steps, checkpointing; SIGTERM saves and exits cleanly."""
        resumed = self.maybe_resume()
        if not resumed:
            self.metrics.start_fresh()  # a killed attempt before the first checkpoint leaves nothing behind
            if self.config.warm_start.steps:
                self.warm_start()
            self.save()
            self.metrics.write(0, {f"difficulty/{env}": h for env, h in self.scheduler.upper.items()})
        progress = self.metrics.progress(self.step, self.config.steps, enabled=self.config.log.progress)
        with StopRequest() as stop:
            while self.step < self.config.steps:
                metrics = self.train_one_step()
                self.metrics.write(self.step, metrics)
                progress.update(self.step, metrics)
                stopping = distributed.any_process(stop.requested)  # every process stops at the same step
                if self.checkpointer.should_save(self.step) or stopping or self.step == self.config.steps:
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
        self.pool.close()
        self.checkpointer.close()
        self.metrics.close()

    # -- supervised warm start (the tiny embedded run) ------------------------
    def warm_start(self) -> None:
        """Cross-entropy on reference answers at the lowest levels, before RL."""
        cfg = self.config.warm_start
        # Short warm-up, cosine decay to lr/10, clipped: fast and stable on a freshly initialised model.
        schedule = optax.warmup_cosine_decay_schedule(0.0, cfg.lr, min(30, cfg.steps // 4), cfg.steps, cfg.lr / 10)
        tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=0.0))
        opt_state = init_optimizer(tx, self.policy.params, self.policy.mesh)
        graphdef, rest = self.policy.graphdef, self.policy.rest

        def loss_fn(params, batch: SequenceBatch):
            logp = sequence_logprobs(nnx.merge(graphdef, params, rest), batch, 1.0)
            return -jnp.sum(logp * batch.loss_mask) / jnp.maximum(jnp.sum(batch.loss_mask), 1.0)

        @functools.partial(jax.jit, out_shardings=(shardings_of(self.policy.params), shardings_of(opt_state),
                                                   NamedSharding(self.policy.mesh, P())))
        def sft_step(params, opt_state, batch):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        draws = warm_start_draws(self.env_names, cfg.max_difficulty, self.config.seed)
        progress = self.metrics.progress(0, cfg.steps, enabled=self.config.log.progress, desc="warm start")
        for step in range(cfg.steps):
            problems, failed = self.warm_start_problems(draws, cfg.batch_size, f"warm-start step {step + 1}")
            policy = self.policy
            prompts = [policy.encode_prompt(p) for p in problems]
            answers = [policy.tokenizer.encode(answer_completion(policy.prompt_format, self.envs[p.env].reference(p)))
                       + policy.stop_ids[:1] for p in problems]
            batch = build_sequences(prompts, answers, policy.tokenizer.pad_id, rows=cfg.batch_size)
            policy.params, opt_state, loss = sft_step(policy.params, opt_state, batch)
            progress.update(step + 1, {"warm_start/loss": float(loss)})
            self.metrics.write(0, {"warm_start/loss": float(loss), "warm_start/step": step + 1,
                                   "warm_start/failed_generations": failed},
                               kind="warm_start")
        progress.close()

    def warm_start_problems(self, draws: Iterator[tuple[str, int, int]], count: int,
                            where: str) -> tuple[list, int]:
        """`count` problems with reference answers for one warm-start batch (never fewer), and how many
        generations failed on the way.

        Failures count against env.max_failure_share (the run stops, naming them, when they are too
        many) and are replaced by further draws, so a batch is never empty or short.
        """
        problems: list = []
        failed = 0
        for _ in range(8):  # within a failure budget below 100%, a few refills suffice
            generated = self.pool.generate([next(draws) for _ in range(count - len(problems))])
            check_failure_budget(self.pool.take_tally(), self.config.env.max_failure_share, where)
            failed += sum(p is None for p in generated)
            problems += [p for p in generated if p is not None and self.envs[p.env].reference(p) is not None]
            if len(problems) == count:
                return problems, failed
        raise FailureBudgetExceeded(f"{where}: only {len(problems)} of {count} problems with reference answers "
                                    f"after 8 rounds of draws ({failed} generations failed)")


def warm_start_draws(env_names: Sequence[str], max_difficulty: int, seed: int) -> Iterator[tuple[str, int, int]]:
    """An endless, reproducible stream of (env, difficulty, seed) at the lowest levels."""
    rng = random.Random(seed)
    problem_seed = WARM_START_SEED_OFFSET
    while True:
        yield rng.choice(env_names), rng.randint(0, max_difficulty), problem_seed
        problem_seed += 1


def make_scheduler(config: ml_collections.ConfigDict, env_names: Sequence[str],
                   max_levels: dict[str, int | None] | None = None) -> AdaptiveScheduler:
    """The configured scheduler; `max_levels` are the environments' top levels (never promoted past)."""
    s = config.scheduler
    if s.kind == "static":
        return StaticScheduler(env_names, s.static_lo, s.static_hi, seed=config.seed, max_levels=max_levels)
    return AdaptiveScheduler(env_names, s.initial_difficulty, s.window, s.promote_threshold,
                             s.min_prompts * config.rollout.samples_per_prompt, seed=config.seed,
                             max_levels=max_levels)
