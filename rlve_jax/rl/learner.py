"""The learner: owns the optimizer state and turns a step's kept groups into one optimizer step.

Every process holds some of the kept groups (the ones it sampled). Each packs them into its rows of
one global staging array (`jax.make_array_from_process_local_data`); every micro-batch then gathers
its rows from it, the same micro-batches on every process (they depend only on the shared records).
`staging_layout` is that index arithmetic as a pure function. Gradients of the loss sums accumulate
over the micro-batches, whatever their shapes, and are divided once by the batch's denominator, so
the grouping does not change the loss.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple, Sequence

import jax
import ml_collections
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.generation.rollout import Group
from rlve_jax.models.policy import Policy
from rlve_jax.rl import losses
from rlve_jax.rl.advantages import ADVANTAGES
from rlve_jax.rl.batching import (MicroBatch, SequenceBatch, bucket, build_sequences, fixed_micro_batches,
                                  padding_fraction, token_budget_micro_batches)
from rlve_jax.rl.collector import Collection, rank_within
from rlve_jax.rl.shaping import SHAPING, ShapingConfig
from rlve_jax.rl.train_step import (accumulator_shardings, init_optimizer, learning_rate, logits_tokens,
                                    make_accumulate, make_apply, make_logprobs, make_micro_loss, make_optimizer,
                                    mini_batches, train_metrics, zero_accumulator)
from rlve_jax.runtime import sharding


class StagingLayout(NamedTuple):
    """Where each kept sequence sits in the global staging array [processes x capacity, ...]."""

    capacity: int  # rows per process: its largest share of sequences + one empty row, a multiple of its shards
    row_of: np.ndarray  # [n] int, the staging row of each kept sequence (draw order: group-major, then sample)
    empty: int  # a row that holds no sequence (micro-batch padding points here)


def staging_layout(owner: np.ndarray, group_size: int, process_count: int, shards_per_process: int,
                   process_rows: Callable[[int], Sequence[np.ndarray]]) -> StagingLayout:
    """owner [k]: the process that holds each kept group (draw order). process_rows(total) -> for each
    process, the global rows its local data fills, in order (sharding.process_rows for the staging sharding).

    Process q packs its kept groups in draw order, G rows each, from its first row; process 0's last
    row is always empty (capacity leaves one spare) and serves as padding.
    """
    most = np.bincount(owner, minlength=process_count).max() if len(owner) else 0
    capacity = -(-(most * group_size + 1) // shards_per_process) * shards_per_process
    place = process_rows(process_count * capacity)
    slot = rank_within(owner)  # each group's rank among its owner's kept groups
    row_of = np.array([place[q][s * group_size + j] for q, s in zip(owner, slot) for j in range(group_size)],
                      np.int64)
    return StagingLayout(capacity, row_of, int(place[0][capacity - 1]))


class Learner:
    """The optimizer state and the update on the policy's parameters: reward shaping, the advantage estimator and
    the policy loss named by the loss section (docs/algorithms.md), train.steps_per_rollout optimizer steps."""

    def __init__(self, policy: Policy, *, optim: ml_collections.ConfigDict, loss: ml_collections.ConfigDict,
                 train: ml_collections.ConfigDict, rollout: ml_collections.ConfigDict, reward_key: str):
        self.policy, self.optim, self.loss, self.train, self.rollout = policy, optim, loss, train, rollout
        self.reward_key = reward_key
        self.group_size = rollout.samples_per_prompt
        mesh = policy.mesh
        self.data_parallel = mesh.shape["data"] * mesh.shape["fsdp"]
        self.tx = make_optimizer(optim)
        self.opt_state = init_optimizer(self.tx, policy.params, mesh)
        chunk = logits_tokens(train, policy.model_config)  # logits held at once per micro-batch
        self.advantages, self.shaping = ADVANTAGES[loss.advantage], SHAPING[loss.shaping]
        self.shaping_config = ShapingConfig(rollout.max_response_tokens, loss.overlong_buffer)
        loss_config = losses.loss_config(loss, rollout.max_response_tokens)
        micro_loss = make_micro_loss(policy.graphdef, policy.rest, loss_config, rollout.temperature, chunk)
        # The sampling policy's logprobs, before the first of several steps per rollout.
        self.old_logprobs = make_logprobs(policy.graphdef, policy.rest, rollout.temperature, chunk)
        acc_shardings = accumulator_shardings(micro_loss, policy.params, mesh)
        self.zero_accumulator = jax.jit(lambda: zero_accumulator(micro_loss, policy.params),
                                        out_shardings=acc_shardings)
        self.accumulate = make_accumulate(micro_loss, acc_shardings)
        self.apply = make_apply(self.tx, policy.params, self.opt_state, mesh, learning_rate(optim))
        self.staging_sharding = NamedSharding(mesh, P(sharding.BATCH))  # [rows, ...] kept rows

        @functools.partial(jax.jit, static_argnames="length", out_shardings=self.staging_sharding)
        def assemble(staging: SequenceBatch, index: jax.Array, length: int) -> SequenceBatch:
            """Staging rows -> one micro-batch [b, length], rows in the given order."""
            return SequenceBatch(*(x[index, :length] if x.ndim == 2 else x[index] for x in staging))

        self.assemble = assemble

    def micro_batches(self, lengths: np.ndarray) -> list[MicroBatch]:
        """One mini-batch's sequences (lengths [n] in draw order) as micro-batches: fixed rows and length, or a
        token budget per micro-batch (train.max_tokens_per_micro_batch)."""
        if self.train.max_tokens_per_micro_batch:
            return token_budget_micro_batches(lengths, self.train.max_tokens_per_micro_batch, self.data_parallel)
        rows = self.rollout.prompts_per_step * self.group_size // self.train.steps_per_rollout
        return fixed_micro_batches(len(lengths), rows, self.train.micro_batch_size, bucket(int(np.max(lengths))))

    def step_plans(self, lengths: np.ndarray, groups: int) -> list[list[MicroBatch]]:
        """The micro-batches of each optimizer step (rows: indices into the step's [n] kept sequences)."""
        return [[MicroBatch(np.where(m.rows >= 0, part[np.maximum(m.rows, 0)], -1), m.length)
                 for m in self.micro_batches(lengths[part])]
                for part in mini_batches(groups, self.group_size, self.train.steps_per_rollout)]

    def group_advantages(self, group: Group) -> np.ndarray:
        """The group's rewards (reward key), shaped (loss.shaping), through the advantage estimator: [G]."""
        lengths = np.array([len(r) for r in group.response_tokens])
        rewards = self.shaping(group.rewards(self.reward_key), lengths, self.shaping_config)
        return self.advantages(rewards[None])[0]

    def update(self, collection: Collection) -> dict[str, float]:
        """One optimizer step on the collection's kept groups; the step's train/ metrics."""
        g, records, kept = self.group_size, collection.records, collection.kept
        owner = records.owner[kept]
        mine = rank_within(records.owner)[kept][owner == jax.process_index()]  # my kept groups, draw order
        own = [collection.mine[i] for i in mine]
        layout = staging_layout(owner, g, jax.process_count(), self.data_parallel // jax.process_count(),
                                functools.partial(sharding.process_rows, self.staging_sharding))
        advantages = [a for group in own for a in self.group_advantages(group)]
        lengths = (records.prompt_length[kept][:, None] + records.length[kept]).reshape(-1)  # [n] draw order
        plans = self.step_plans(lengths, len(kept))
        micro_batches = [m for plan in plans for m in plan]
        local = build_sequences([group.prompt_tokens for group in own for _ in range(g)],
                                [r for group in own for r in group.response_tokens], self.policy.tokenizer.pad_id,
                                [lp for group in own for lp in group.sampler_logprobs], advantages,
                                layout.capacity, max(m.length for m in micro_batches))
        staged = jax.process_count() * layout.capacity
        staging = SequenceBatch(*(jax.make_array_from_process_local_data(self.staging_sharding, x,
                                                                         (staged, *x.shape[1:])) for x in local))

        def batch(micro: MicroBatch) -> SequenceBatch:
            index = np.where(micro.rows >= 0, layout.row_of[np.maximum(micro.rows, 0)], layout.empty)
            return self.assemble(staging, index.astype(np.int32), length=micro.length)

        steps = []
        with jax.set_mesh(self.policy.mesh):
            # Old logprobs of the later steps' micro-batches, from the policy that sampled (the first step's
            # are its own, through stop_gradient).
            old = [[self.old_logprobs(self.policy.params, batch(m)) for m in plan] for plan in plans[1:]]
            for i, plan in enumerate(plans):
                acc = self.zero_accumulator()
                for j, micro in enumerate(plan):
                    acc = self.accumulate(self.policy.params, acc, batch(micro), old[i - 1][j] if i else None)
                self.policy.params, self.opt_state, metrics = self.apply(self.policy.params, self.opt_state, acc)
                steps.append(metrics)
        return {**train_metrics(steps), "train/micro_batches": len(micro_batches),
                "train/padding_fraction": padding_fraction(lengths, micro_batches)}
