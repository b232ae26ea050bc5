"""The RLVE training loop: schedule -> generate problems -> sample responses -> verify ->
update the scheduler -> filter groups -> DAPO update -> checkpoint.

One process drives all local accelerators through a `Mesh`; problem generation and
verification run in the host process pool. Everything is reproducible from the config seed:
sampling keys are derived from (seed, step, round), problem draws from the scheduler's own RNG.
"""

from __future__ import annotations

import logging
import random
import time
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax import dapo, evaluate, registry
from rlve_jax import model as model_lib
from rlve_jax.checkpoint import Checkpointer, StopRequest
from rlve_jax.metrics import MetricsWriter
from rlve_jax.pool import EnvPool
from rlve_jax.rollout import Group, RolloutStats, SamplingSettings, answer_completion, load_policy, sample_groups
from rlve_jax.scheduler import AdaptiveScheduler, Rollout, StaticScheduler

log = logging.getLogger(__name__)

WARM_START_SEED_OFFSET = 1 << 40  # warm-start problems never share seeds with RL problems


# ---------------------------------------------------------------------------
# Batches


class SequenceBatch(NamedTuple):
    """Prompt + response token sequences, left-aligned and right-padded, for a training forward."""

    tokens: np.ndarray  # [B, T] int32
    positions: np.ndarray  # [B, T] int32
    mask: np.ndarray  # [B, T] bool, valid tokens (a prefix of each row)
    loss_mask: np.ndarray  # [B, T] float32, 1 on the response tokens that count
    sampler_logprobs: np.ndarray  # [B, T] float32, at the response tokens
    advantages: np.ndarray  # [B] float32


def bucket(length: int, minimum: int = 16) -> int:
    """Round a length up to a power of two so shapes (and compilations) stay few."""
    return max(minimum, 1 << max(0, length - 1).bit_length())


def build_sequences(prompts: Sequence[Sequence[int]], responses: Sequence[Sequence[int]], pad_id: int,
                    sampler_logprobs: Sequence[Sequence[float]] | None = None,
                    advantages: Sequence[float] | None = None, rows: int | None = None) -> SequenceBatch:
    """Pack token lists into a SequenceBatch; `rows` pads the batch with empty rows (loss mask 0)."""
    rows = rows or len(prompts)
    length = bucket(max(len(p) + len(r) for p, r in zip(prompts, responses)))
    tokens = np.full((rows, length), pad_id, np.int32)
    loss_mask = np.zeros((rows, length), np.float32)
    logprobs = np.zeros((rows, length), np.float32)
    lengths = np.zeros(rows, np.int32)
    for i, (prompt, response) in enumerate(zip(prompts, responses)):
        p, r = len(prompt), len(response)
        tokens[i, :p + r] = [*prompt, *response]
        loss_mask[i, p:p + r] = 1.0
        if sampler_logprobs is not None:
            logprobs[i, p:p + r] = sampler_logprobs[i]
        lengths[i] = p + r
    positions = np.broadcast_to(np.arange(length, dtype=np.int32), (rows, length)).copy()
    mask = positions < lengths[:, None]
    adv = np.zeros(rows, np.float32)
    if advantages is not None:
        adv[:len(advantages)] = advantages
    return SequenceBatch(tokens, positions, mask, loss_mask, logprobs, adv)


def sequence_logprobs(model, batch: SequenceBatch, temperature: float) -> jax.Array:
    """log p(token t | tokens before t) under the model, aligned with the tokens: [B, T]."""
    next_logp = model_lib.token_logprobs(model, batch.tokens, batch.positions, batch.mask, temperature)  # [B, T]
    return jnp.pad(next_logp[:, :-1], ((0, 0), (1, 0)))


# ---------------------------------------------------------------------------
# The trainer


def make_optimizer(optim: ml_collections.ConfigDict) -> optax.GradientTransformation:
    """AdamW with global-norm clipping and a linear warm-up to a constant learning rate."""
    schedule = optax.linear_schedule(0.0, optim.lr, optim.warmup_steps) if optim.warmup_steps else optim.lr
    return optax.chain(
        optax.clip_by_global_norm(optim.grad_clip) if optim.grad_clip > 0 else optax.identity(),
        optax.adamw(schedule, b1=optim.b1, b2=optim.b2, eps=optim.eps, weight_decay=optim.weight_decay),
    )


def validate(config: ml_collections.ConfigDict) -> None:
    """Fail at once, with what to pass, on configs that cannot work."""
    if config.env.reward_key not in ("reward", "accuracy"):
        raise ValueError(f"env.reward_key must be 'reward' or 'accuracy', got {config.env.reward_key!r}")
    if config.loss.aggregation not in dapo.AGGREGATIONS:
        raise ValueError(f"loss.aggregation must be one of {dapo.AGGREGATIONS}, got {config.loss.aggregation!r}")
    if config.scheduler.kind not in ("adaptive", "static"):
        raise ValueError(f"scheduler.kind must be 'adaptive' or 'static', got {config.scheduler.kind!r}")
    if config.rollout.samples_per_prompt < 2 and config.rollout.dynamic_sampling:
        raise ValueError("dynamic sampling needs rollout.samples_per_prompt >= 2")
    rows = config.rollout.prompts_per_step * config.rollout.samples_per_prompt
    if rows % config.train.micro_batch_size:
        raise ValueError(f"train.micro_batch_size={config.train.micro_batch_size} must divide the batch of "
                         f"{rows} sequences (prompts_per_step x samples_per_prompt)")


class Trainer:
    """Owns the model, optimizer, scheduler, pool, sampler settings and the workdir."""

    def __init__(self, config: ml_collections.ConfigDict, workdir: str | Path):
        validate(config)
        self.config = config
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env_names = registry.resolve(config.env.collection)
        self.envs = dict(zip(self.env_names, registry.make_all(self.env_names)))  # fails listing what is missing
        self.policy = load_policy(config, self.env_names, self.workdir)
        self.tx = make_optimizer(config.optim)
        self.opt_state = jax.jit(self.tx.init)(self.policy.params)
        self.scheduler = make_scheduler(config, self.env_names)
        self.pool = EnvPool(config.env.workers, config.env.timeout_s, config.env.memory_limit_mb)
        self.checkpointer = Checkpointer(self.workdir, config.checkpoint.every, config.checkpoint.keep)
        self.loss_config = dapo.LossConfig(config.loss.clip_low, config.loss.clip_high, config.loss.tis_clip,
                                           config.loss.aggregation)
        self.sampling = SamplingSettings(
            config.rollout.samples_per_prompt, config.rollout.max_response_tokens, config.rollout.temperature,
            config.rollout.top_p, config.rollout.top_k, config.rollout.max_prompt_tokens,
            config.rollout.cache_budget_tokens or None)
        self.step = 0
        self.train_step = self._make_train_step()
        self.batch_sharding = NamedSharding(self.policy.mesh, P(None, ("data", "fsdp")))
        self.metrics = MetricsWriter(self.workdir, config.log.tensorboard)
        self.eval_problems = (evaluate.heldout_subset(evaluate.load_problems(), config.eval.problems)
                              if config.eval.every > 0 else [])

    # -- state --------------------------------------------------------------
    def meta(self) -> dict:
        return {"step": self.step, "seed": self.config.seed, "scheduler": self.scheduler.state_dict(),
                "pool_stats": self.pool.stats.as_dict(), "config": self.config.to_dict()}

    def save(self) -> None:
        self.checkpointer.save(self.step, self.policy.params, self.opt_state, self.meta())

    def maybe_resume(self) -> bool:
        """Restore the latest checkpoint in the workdir, if any."""
        latest = self.checkpointer.latest_step()
        if latest is None:
            return False
        self.policy.params, self.opt_state, meta = self.checkpointer.restore(latest, self.policy.params,
                                                                              self.opt_state)
        self.scheduler.load_state_dict(meta["scheduler"])
        self.step = meta["step"]
        self.metrics.truncate_after(self.step)
        log.info("resumed from step %d in %s", self.step, self.workdir)
        return True

    # -- rollouts -----------------------------------------------------------
    def sampling_key(self, round_index: int) -> jax.Array:
        return jax.random.fold_in(jax.random.fold_in(jax.random.key(self.config.seed), self.step), round_index)

    def collect(self) -> tuple[list[Group], list[Group], RolloutStats]:
        """Dynamic sampling: draw rounds until enough groups with unequal rewards are kept.

        Returns (kept groups for training, every generated group, stats).
        """
        cfg = self.config.rollout
        stats = RolloutStats()
        kept: list[Group] = []
        generated: list[Group] = []
        for round_index in range(cfg.max_rounds):
            start = time.perf_counter()
            draws = [self.scheduler.sample() for _ in range(cfg.oversample_prompts)]
            problems = self.pool.generate([(d.env, d.difficulty, d.seed) for d in draws])
            stats.failed_generations += sum(p is None for p in problems)
            stats.seconds["sample"] += time.perf_counter() - start
            groups = sample_groups(self.policy, self.pool, [p for p in problems if p is not None], self.sampling,
                                   self.sampling_key(round_index), stats)
            stats.rounds += 1
            generated += groups
            for group in groups:
                informative = np.std(group.rewards(self.config.env.reward_key)) > 0
                if (informative or not cfg.dynamic_sampling) and len(kept) < cfg.prompts_per_step:
                    kept.append(group)
            if len(kept) >= cfg.prompts_per_step:
                break
        stats.drawn_groups, stats.kept_groups = len(generated), len(kept)
        return kept, generated, stats

    # -- update -------------------------------------------------------------
    def _make_train_step(self):
        graphdef, rest, tx = self.policy.graphdef, self.policy.rest, self.tx
        loss_config, temperature = self.loss_config, self.config.rollout.temperature

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
            grad_norm = optax.global_norm(grads)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            return params, opt_state, {"loss": loss / denominator, "grad_norm": grad_norm, **metrics}

        return jax.jit(train_step, donate_argnums=(0, 1))

    def update(self, groups: list[Group]) -> dict[str, float]:
        """One optimiser step on the kept groups (padded with empty rows to a fixed batch)."""
        cfg = self.config
        g = cfg.rollout.samples_per_prompt
        rows = cfg.rollout.prompts_per_step * g
        advantages = np.concatenate([
            dapo.group_advantages(self.shaped_rewards(group), g, cfg.loss.normalize_std) for group in groups])
        prompts = [group.prompt_tokens for group in groups for _ in range(g)]
        responses = [r for group in groups for r in group.response_tokens]
        logprobs = [lp for group in groups for lp in group.sampler_logprobs]
        batch = build_sequences(prompts, responses, self.policy.tokenizer.pad_id, logprobs, advantages, rows)
        denominator = float(dapo.aggregate(jnp.zeros(batch.loss_mask.shape), batch.loss_mask,
                                           cfg.loss.aggregation)[1])
        micro = cfg.train.micro_batch_size
        stacked = jax.tree.map(lambda x: x.reshape(rows // micro, micro, *x.shape[1:]), batch)
        stacked = jax.device_put(SequenceBatch(*stacked), self.batch_sharding)
        self.policy.params, self.opt_state, metrics = self.train_step(
            self.policy.params, self.opt_state, stacked, jnp.float32(max(denominator, 1.0)))
        tokens = max(float(batch.loss_mask.sum()), 1.0)
        result = {"train/loss": float(metrics["loss"]), "train/grad_norm": float(metrics["grad_norm"]),
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
        kept, generated, stats = self.collect()
        rollouts = [Rollout(g.problem.env, g.problem.difficulty, float(v.accuracy))
                    for g in generated for v in g.verdicts]
        promoted = self.scheduler.update(rollouts)
        metrics = rollout_metrics(generated, stats, self.config.rollout.max_response_tokens)
        train_start = time.perf_counter()
        if kept:
            metrics.update(self.update(kept))
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
                if self.checkpointer.should_save(self.step) or stop.requested or self.step == self.config.steps:
                    self.save()
                if stop.requested:
                    log.warning("stop requested: saved step %d, exiting", self.step)
                    break
        progress.close()
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
        opt_state = jax.jit(tx.init)(self.policy.params)
        graphdef, rest = self.policy.graphdef, self.policy.rest

        def loss_fn(params, batch: SequenceBatch):
            logp = sequence_logprobs(nnx.merge(graphdef, params, rest), batch, 1.0)
            return -jnp.sum(logp * batch.loss_mask) / jnp.maximum(jnp.sum(batch.loss_mask), 1.0)

        @jax.jit
        def sft_step(params, opt_state, batch):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        draws = warm_start_draws(self.env_names, cfg.max_difficulty, self.config.seed)
        progress = self.metrics.progress(0, cfg.steps, enabled=self.config.log.progress, desc="warm start")
        for step in range(cfg.steps):
            requests = [next(draws) for _ in range(cfg.batch_size)]
            problems = [p for p in self.pool.generate(requests) if p is not None]
            policy = self.policy
            prompts = [policy.encode_prompt(p) for p in problems]
            answers = [policy.tokenizer.encode(answer_completion(policy.prompt_format, self.envs[p.env].reference(p)))
                       + policy.stop_ids[:1] for p in problems]
            batch = build_sequences(prompts, answers, policy.tokenizer.pad_id, rows=cfg.batch_size)
            policy.params, opt_state, loss = sft_step(policy.params, opt_state, batch)
            progress.update(step + 1, {"warm_start/loss": float(loss)})
            self.metrics.write(0, {"warm_start/loss": float(loss), "warm_start/step": step + 1}, kind="warm_start")
        progress.close()


def warm_start_draws(env_names: Sequence[str], max_difficulty: int, seed: int) -> Iterator[tuple[str, int, int]]:
    """An endless, reproducible stream of (env, difficulty, seed) at the lowest levels."""
    rng = random.Random(seed)
    problem_seed = WARM_START_SEED_OFFSET
    while True:
        yield rng.choice(env_names), rng.randint(0, max_difficulty), problem_seed
        problem_seed += 1


def make_scheduler(config: ml_collections.ConfigDict, env_names: Sequence[str]) -> AdaptiveScheduler:
    s = config.scheduler
    if s.kind == "static":
        return StaticScheduler(env_names, s.static_lo, s.static_hi, seed=config.seed)
    return AdaptiveScheduler(env_names, s.initial_difficulty, s.window, s.promote_threshold,
                             s.min_prompts * config.rollout.samples_per_prompt, seed=config.seed)


def rollout_metrics(groups: list[Group], stats: RolloutStats, max_response_tokens: int) -> dict[str, float]:
    """Means over every generated response of the step, per-environment accuracy, time split."""
    verdicts = [v for g in groups for v in g.verdicts]
    lengths = np.array([len(r) for g in groups for r in g.response_tokens] or [0])
    metrics: dict[str, float] = {
        "rollout/reward": float(np.mean([v.reward for v in verdicts])) if verdicts else 0.0,
        "rollout/accuracy": float(np.mean([v.accuracy for v in verdicts])) if verdicts else 0.0,
        "rollout/format_ok": float(np.mean([v.format_ok for v in verdicts])) if verdicts else 0.0,
        "rollout/response_length_mean": float(lengths.mean()),
        "rollout/response_length_max": float(lengths.max()),
        "rollout/truncation_rate": float(np.mean([t for g in groups for t in g.truncated])) if groups else 0.0,
        "rollout/effective_prompt_ratio": stats.kept_groups / max(stats.drawn_groups, 1),
        "rollout/kept_groups": stats.kept_groups,
        "rollout/drawn_groups": stats.drawn_groups,
        "rollout/rounds": stats.rounds,
        "rollout/failed_generations": stats.failed_generations,
        "rollout/skipped_long_prompts": stats.skipped_long_prompts,
        "rollout/generate_tokens_per_s": stats.generated_tokens / max(stats.seconds["generate"], 1e-9),
    }
    for name, seconds in stats.seconds.items():
        metrics[f"time/{name}"] = seconds
    per_env: dict[str, list[float]] = {}
    for g in groups:
        per_env.setdefault(g.problem.env, []).extend(float(v.accuracy) for v in g.verdicts)
    for env, values in per_env.items():
        metrics[f"accuracy/{env}"] = float(np.mean(values))
    return metrics


