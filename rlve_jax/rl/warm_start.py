"""The supervised warm start (the tiny embedded run): cross-entropy on reference answers at the
lowest levels, before RL. Its problems never share seeds with RL problems. It trains what RL trains: every
weight, or with LoRA the adapters only (the base stays the one the checkpoints' adapters are checked against)."""

from __future__ import annotations

import dataclasses
import functools
import random
from typing import Iterator, Mapping, Sequence

import jax
import jax.numpy as jnp
import optax
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.gym.env import Environment, Problem
from rlve_jax.gym.pool import EnvPool, FailureBudgetExceeded, check_failure_budget
from rlve_jax.gym.scheduler import first_problem_seed
from rlve_jax.models.policy import Policy
from rlve_jax.rl.batching import SequenceBatch, build_sequences, sequence_logprobs
from rlve_jax.rl.train_step import init_optimizer, shardings_of
from rlve_jax.runtime.metrics import MetricsWriter
from rlve_jax.runtime.trainable import merge_trainable, split_trainable

SEED_OFFSET = 1 << 40  # inside the run seed's block: warm-start problems never share seeds with RL problems


@dataclasses.dataclass(frozen=True)
class WarmStartSettings:
    """The warm_start section."""

    steps: int  # 0: none
    batch_size: int
    lr: float
    max_difficulty: int  # problems drawn from levels 0..max_difficulty


def draws(env_names: Sequence[str], max_difficulty: int, seed: int) -> Iterator[tuple[str, int, int]]:
    """An endless, reproducible stream of (env, difficulty, seed) at the lowest levels (the run seed's own)."""
    rng = random.Random(seed)
    problem_seed = first_problem_seed(seed) + SEED_OFFSET
    while True:
        yield rng.choice(env_names), rng.randint(0, max_difficulty), problem_seed
        problem_seed += 1


def problems_with_references(pool: EnvPool, envs: Mapping[str, Environment], stream: Iterator[tuple[str, int, int]],
                             count: int, max_failure_share: float, where: str) -> tuple[list[Problem], int]:
    """`count` problems with reference answers for one batch (never fewer), and how many generations
    failed on the way.

    Failures count against env.max_failure_share (the run stops, naming them, when they are too
    many) and are replaced by further draws, so a batch is never empty or short.
    """
    problems: list[Problem] = []
    failed = 0
    for _ in range(8):  # within a failure budget below 100%, a few refills suffice
        generated = pool.generate([next(stream) for _ in range(count - len(problems))])
        check_failure_budget(pool.take_tally(), max_failure_share, where)
        failed += sum(p is None for p in generated)
        problems += [p for p in generated if p is not None and envs[p.env].reference(p) is not None]
        if len(problems) == count:
            return problems, failed
    raise FailureBudgetExceeded(f"{where}: only {len(problems)} of {count} problems with reference answers "
                                f"after 8 rounds of draws ({failed} generations failed)")


def make_sft_step(policy: Policy, tx: optax.GradientTransformation, params, opt_state):
    """jit (trainable, frozen, opt_state, batch) -> one cross-entropy step on the batch's response tokens: the
    trainable parameters (lora.split_trainable: all, or the adapters) and the optimizer state updated in place
    (donated), the frozen ones read."""
    graphdef, rest = policy.graphdef, policy.rest

    def loss_fn(trainable, frozen, batch: SequenceBatch):
        model = nnx.merge(graphdef, merge_trainable(trainable, frozen), rest)
        logp = sequence_logprobs(model, batch, 1.0)  # [B, T]
        return -jnp.sum(logp * batch.loss_mask) / jnp.maximum(jnp.sum(batch.loss_mask), 1.0)

    @functools.partial(jax.jit, donate_argnums=(0, 2), out_shardings=(
        shardings_of(split_trainable(params)[0]), shardings_of(opt_state), NamedSharding(policy.mesh, P())))
    def sft_step(trainable, frozen, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(trainable, frozen, batch)
        updates, opt_state = tx.update(grads, opt_state, trainable)
        return optax.apply_updates(trainable, updates), opt_state, loss

    return sft_step


def warm_start(policy: Policy, pool: EnvPool, envs: Mapping[str, Environment], metrics: MetricsWriter, params,
               settings: WarmStartSettings, *, seed: int, max_failure_share: float, progress: bool):
    """`params` after settings.steps supervised steps (consumed: the steps update them in place), logged as kind
    "warm_start"."""
    steps, batch_size, lr = settings.steps, settings.batch_size, settings.lr
    # Short warm-up (its first step above 0), cosine decay to lr/10, clipped: fast and stable on a freshly
    # initialised model.
    warmup = max(1, min(30, steps // 4))
    schedule = optax.warmup_cosine_decay_schedule(lr / warmup, lr, warmup, steps, lr / 10)
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=0.0))
    opt_state = init_optimizer(tx, params, policy.mesh)
    sft_step = make_sft_step(policy, tx, params, opt_state)
    trainable, frozen = split_trainable(params)
    stream = draws(list(envs), settings.max_difficulty, seed)
    bar = metrics.progress(0, steps, enabled=progress, desc="warm start")

    def log(step: int, loss: jax.Array, failed: int) -> None:
        bar.update(step + 1, {"warm_start/loss": float(loss)})
        metrics.write(0, {"warm_start/loss": float(loss), "warm_start/step": step + 1,
                          "warm_start/failed_generations": failed}, kind="warm_start")

    previous = None  # the last step's (step, loss, failed), logged once the next step is dispatched
    for step in range(steps):
        problems, failed = problems_with_references(pool, envs, stream, batch_size, max_failure_share,
                                                    f"warm-start step {step + 1}")
        prompts = [policy.prompt_format.encode(p.prompt) for p in problems]
        answers = [policy.tokenizer.encode(policy.prompt_format.completion(envs[p.env].reference(p)))
                   + policy.stop_ids[:1] for p in problems]
        batch = build_sequences(prompts, answers, policy.tokenizer.pad_id, rows=batch_size)
        trainable, opt_state, loss = sft_step(trainable, frozen, opt_state, batch)  # dispatched, not awaited
        if previous is not None:  # the host prepared this batch while the device ran the last step
            log(*previous)
        previous = (step, loss, failed)
    if previous is not None:
        log(*previous)
    bar.close()
    return merge_trainable(trainable, frozen)
