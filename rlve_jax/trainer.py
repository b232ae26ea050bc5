"""The RLVE training loop: collect a step's rollouts (rlve_jax/collector.py) -> update the
scheduler -> DAPO update -> checkpoint.

Every process (one per host, see rlve_jax/distributed.py) runs this same loop. The collector
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

from rlve_jax import dapo, defaults, distributed, evaluate, registry, sharding
from rlve_jax.checkpoint import Checkpointer, StopRequest
from rlve_jax.metrics import MetricsWriter, wandb_writer
from rlve_jax.pool import EnvPool, FailureBudgetExceeded, PoolStats, check_failure_budget
from rlve_jax.batching import SequenceBatch, bucket, build_sequences, sequence_logprobs
from rlve_jax.collector import Collection, Collector, rank_within, rollout_metrics
from rlve_jax.policy import load_policy
from rlve_jax.rollout import Group, answer_completion
from rlve_jax.scheduler import AdaptiveScheduler, Rollout, StaticScheduler

log = logging.getLogger(__name__)

WARM_START_SEED_OFFSET = 1 << 40  # warm-start problems never share seeds with RL problems


# ---------------------------------------------------------------------------
# The trainer


def learning_rate(optim: ml_collections.ConfigDict) -> optax.Schedule:
    """The learning rate of the update that follows `count` updates: a linear warm-up to a constant."""
    if optim.warmup_steps:
        return optax.linear_schedule(0.0, optim.lr, optim.warmup_steps)
    return optax.constant_schedule(optim.lr)


def make_optimizer(optim: ml_collections.ConfigDict) -> optax.GradientTransformation:
    """AdamW with global-norm clipping and a linear warm-up to a constant learning rate."""
    schedule = learning_rate(optim) if optim.warmup_steps else optim.lr  # a float keeps the state schedule-free
    return optax.chain(
        optax.clip_by_global_norm(optim.grad_clip) if optim.grad_clip > 0 else optax.identity(),
        optax.adamw(schedule, b1=optim.b1, b2=optim.b2, eps=optim.eps, weight_decay=optim.weight_decay),
    )


def init_optimizer(tx: optax.GradientTransformation, params, mesh) -> optax.OptState:
    """The optimizer state placed like the parameters it mirrors (Adam's moments sharded as the
    parameters are, ZeRO-3), its scalars replicated. Left to itself, jit replicates all of it."""
    replicated = NamedSharding(mesh, P())
    shardings = optax.tree_map_params(tx, lambda _, p: p.sharding, jax.eval_shape(tx.init, params), params,
                                      transform_non_params=lambda _: replicated)
    return jax.jit(tx.init, out_shardings=shardings)(params)


def shardings_of(tree):
    return jax.tree.map(lambda x: x.sharding, tree)


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
        data_parallel = self.policy.mesh.shape["data"] * self.policy.mesh.shape["fsdp"]
        if config.train.micro_batch_size % data_parallel:
            raise ValueError(f"train.micro_batch_size={config.train.micro_batch_size} must be a multiple of the "
                             f"{data_parallel} data-parallel devices (mesh.data x mesh.fsdp)")
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
        self.train_step = self._make_train_step()
        mesh = self.policy.mesh
        self.batch_sharding = NamedSharding(mesh, P(None, sharding.BATCH))  # [M, b, ...] micro-batches
        self.staging_sharding = NamedSharding(mesh, P(sharding.BATCH))  # [rows, ...] each process's kept rows
        self.assemble = self._make_assemble()
        self.metrics = MetricsWriter(self.workdir, config.log.tensorboard, enabled=distributed.is_primary(),
                                     wandb=wandb_writer(config, self.workdir, distributed.is_primary()))
        self.eval_problems = (evaluate.heldout_subset(evaluate.load_problems(), config.eval.problems)
                              if config.eval.every > 0 else [])

    # -- state --------------------------------------------------------------
    def meta(self) -> dict:
        return {"step": self.step, "seed": self.config.seed, "scheduler": self.scheduler.state_dict(),
                "pool_stats": self.pool.stats.as_dict(), "config": self.config.to_dict()}

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
        self.pool.stats = PoolStats.from_dict(meta.get("pool_stats", {}))
        self.step = meta["step"]
        self.metrics.resume_at(self.step)
        log.info("resumed from step %d in %s", self.step, self.workdir)
        return True

    # -- update -------------------------------------------------------------
    def _make_train_step(self):
        graphdef, rest, tx = self.policy.graphdef, self.policy.rest, self.tx
        loss_config, temperature = self.loss_config, self.config.rollout.temperature
        schedule = learning_rate(self.config.optim)

        def micro_loss(params, micro: SequenceBatch):
            model = nnx.merge(graphdef, params, rest)
            logp = sequence_logprobs(model, micro, temperature)  # [b, T]
            loss_sum, _, metrics = dapo.policy_loss(logp, jax.lax.stop_gradient(logp), micro.sampler_logprobs,
                                                    micro.advantages, micro.loss_mask, loss_config)
            return loss_sum, metrics

        grad_fn = jax.value_and_grad(micro_loss, has_aux=True)

        def train_step(params, opt_state, batch: SequenceBatch, denominator: jax.Array):
            """batch leaves: [M, b, ...] micro-batches; gradients of the loss sums accumulate exactly."""
            def body(carry, micro):
                (loss, metrics), grads = grad_fn(params, micro)
                return jax.tree.map(jnp.add, carry, (loss, metrics, grads)), None

            first = jax.tree.map(lambda x: x[0], batch)
            shapes = jax.eval_shape(grad_fn, params, first)
            zeros = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), (shapes[0][0], shapes[0][1], shapes[1]))
            (loss, metrics, grads), _ = jax.lax.scan(body, zeros, batch)
            grads = jax.tree.map(lambda g: g / denominator, grads)
            grad_norm = optax.global_norm(grads)  # before clipping
            done = optax.tree_utils.tree_get_all_with_path(opt_state, "count")[0][1]  # Adam's update count
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            return params, opt_state, {"loss": loss / denominator, "grad_norm": grad_norm,
                                       "learning_rate": schedule(done), **metrics}

        # Outputs keep the inputs' placement, so the next step reuses this compilation.
        replicated = NamedSharding(self.policy.mesh, P())
        return jax.jit(train_step, donate_argnums=(0, 1),
                       out_shardings=(shardings_of(self.policy.params), shardings_of(self.opt_state), replicated))

    def _make_assemble(self):
        micro, aggregation = self.config.train.micro_batch_size, self.config.loss.aggregation

        def assemble(staging: SequenceBatch, index: jax.Array):
            """Staging rows (each process's kept groups) -> the batch in draw order as micro-batches
            [M, b, ...], the loss denominator of the whole batch and its response token count."""
            batch = SequenceBatch(*(x[index].reshape(-1, micro, *x.shape[1:]) for x in staging))
            mask = batch.loss_mask.reshape(-1, batch.loss_mask.shape[-1])
            denominator = dapo.aggregate(jnp.zeros(mask.shape), mask, aggregation)[1]
            return batch, jnp.maximum(denominator, 1.0), jnp.sum(mask)

        replicated = NamedSharding(self.policy.mesh, P())
        return jax.jit(assemble, out_shardings=(self.batch_sharding, replicated, replicated))

    def update(self, collection: Collection) -> dict[str, float]:
        """One optimiser step on the kept groups (padded with empty rows to a fixed batch).

        Each process packs the kept groups it holds into its rows of a staging array
        (`make_array_from_process_local_data`); one gather puts every row in draw order.
        """
        cfg = self.config
        mine, records, kept = collection.mine, collection.records, collection.kept
        g = cfg.rollout.samples_per_prompt
        rows = cfg.rollout.prompts_per_step * g
        owner, slot = records.owner[kept], rank_within(records.owner[kept])  # slot: among the owner's kept
        own = [mine[i] for i in rank_within(records.owner)[kept][owner == jax.process_index()]]
        mesh = self.policy.mesh
        shards = mesh.shape["data"] * mesh.shape["fsdp"] // jax.process_count()  # batch shards per process
        cap = -(-(np.bincount(owner, minlength=jax.process_count()).max() * g + 1) // shards) * shards
        advantages = [a for group in own
                      for a in dapo.group_advantages(self.shaped_rewards(group), g, cfg.loss.normalize_std)]
        length = bucket(int(np.max(records.prompt_length[kept] + records.length[kept].max(axis=1))))
        local = build_sequences([group.prompt_tokens for group in own for _ in range(g)],
                                [r for group in own for r in group.response_tokens], self.policy.tokenizer.pad_id,
                                [lp for group in own for lp in group.sampler_logprobs], advantages, cap, length)
        staged = jax.process_count() * cap
        staging = SequenceBatch(*(jax.make_array_from_process_local_data(self.staging_sharding, x,
                                                                         (staged, *x.shape[1:])) for x in local))
        place = sharding.process_rows(self.staging_sharding, staged)  # process -> its staging rows, in order
        index = np.full(rows, place[0][cap - 1], np.int32)  # padding: process 0's last row is always empty
        index[:len(kept) * g] = [place[q][s * g + j] for q, s in zip(owner, slot) for j in range(g)]
        batch, denominator, tokens = self.assemble(staging, index)
        self.policy.params, self.opt_state, metrics = self.train_step(
            self.policy.params, self.opt_state, batch, denominator)
        tokens = max(float(tokens), 1.0)
        result = {"train/loss": float(metrics["loss"]), "train/grad_norm": float(metrics["grad_norm"]),
                  "train/learning_rate": float(metrics["learning_rate"]),
                  "train/clip_fraction": float(metrics["clip_fraction"]) / tokens}
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
            self.policy, self.pool, self.eval_problems, evaluate.eval_settings(self.config, 1), self.config.seed,
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
