"""The learner: owns the train state (parameters, optimizer state, step) and turns a step's kept groups into its
optimizer steps.

Every process holds some of the kept groups (the ones it sampled). Each packs them into its rows of
one global staging array (`jax.make_array_from_process_local_data`); every micro-batch then gathers
its rows from it, the same micro-batches on every process (they depend only on the shared records).
`staging_layout` is that index arithmetic as a pure function. Gradients of the loss sums accumulate
over the micro-batches, whatever their shapes, and are divided once by the batch's denominator, so
the grouping does not change the loss.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, NamedTuple, Sequence

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.models.policy import Policy
from rlve_jax.rl import losses
from rlve_jax.rl.advantages import ADVANTAGES
from rlve_jax.rl.batching import (MicroBatch, SequenceBatch, bucket, build_sequences, fixed_micro_batches,
                                  largest_micro_batch, padding_fraction, token_budget_micro_batches)
from rlve_jax.rl.collector import Collection, rank_within
from rlve_jax.rl.rollout import Group
from rlve_jax.rl.shaping import SHAPING, ShapingConfig
from rlve_jax.rl.train_step import OptimSettings, build_update, logits_tokens, mini_batches, train_metrics
from rlve_jax.runtime import sharding
from rlve_jax.runtime.checkpoint import TrainState


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


@dataclasses.dataclass(frozen=True)
class LearnerSettings:
    """The update's settings: the optim and loss sections, the named parts (docs/algorithms.md) and the batch's
    layout (the train section, the rollout's group and batch sizes)."""

    optim: OptimSettings
    loss: losses.LossConfig
    advantage: str  # ADVANTAGES
    shaping: str  # SHAPING
    shaping_config: ShapingConfig
    reward_key: str  # "reward" (shaped) or "accuracy" (binary)
    group_size: int  # rollout.samples_per_prompt
    prompts_per_step: int
    temperature: float  # the sampler's: logprobs at the sampling temperature
    micro_batch_size: int
    steps_per_rollout: int  # optimizer steps per rollout batch (mini-batches)
    max_tokens_per_micro_batch: int  # > 0: token-budget micro-batches

    def logits_tokens(self, model_config) -> int | None:
        return logits_tokens(self.micro_batch_size, self.max_tokens_per_micro_batch, model_config)

    def largest_micro_batch(self, longest: int, data_parallel: int) -> tuple[int, int]:
        """(rows, padded length) of the largest micro-batch of sequences up to `longest` tokens on `data_parallel`
        devices; a one-line ValueError when the layout cannot split over them."""
        if self.micro_batch_size % data_parallel:
            raise ValueError(f"train.micro_batch_size={self.micro_batch_size} must be a multiple of the "
                             f"{data_parallel} data-parallel devices (mesh.data x mesh.fsdp)")
        return largest_micro_batch(longest, self.micro_batch_size, self.max_tokens_per_micro_batch, data_parallel)


class Learner:
    """Owns the train state (parameters, optimizer state, step) and turns each step's kept groups into
    train.steps_per_rollout optimizer steps: reward shaping, the advantage estimator and the policy loss named by
    the loss section (docs/algorithms.md)."""

    def __init__(self, policy: Policy, settings: LearnerSettings):
        self.policy, self.settings = policy, settings
        mesh = policy.mesh
        self.data_parallel = mesh.shape["data"] * mesh.shape["fsdp"]
        self.fns = build_update(policy.graphdef, policy.rest, policy.params, mesh, optim=settings.optim,
                                loss=settings.loss, temperature=settings.temperature,
                                logits_tokens=settings.logits_tokens(policy.model_config))
        # Resident from here: the engine sizes its KV budget from the memory left after it.
        self.state = TrainState(policy.params, self.fns.init_opt_state(policy.params), 0)
        self.advantages, self.shaping = ADVANTAGES[settings.advantage], SHAPING[settings.shaping]
        self.staging_sharding = NamedSharding(mesh, P(sharding.BATCH))  # [rows, ...] kept rows

        @functools.partial(jax.jit, static_argnames="length", out_shardings=self.staging_sharding)
        def assemble(staging: SequenceBatch, index: jax.Array, length: int) -> SequenceBatch:
            """Staging rows -> one micro-batch [b, length], rows in the given order."""
            return SequenceBatch(*(x[index, :length] if x.ndim == 2 else x[index] for x in staging))

        self.assemble = assemble

    def start(self, params) -> None:
        """A fresh run from `params` (the policy's weights, warm-started), before any update: step 0."""
        self.state = self.state._replace(params=params, step=0)

    def micro_batches(self, lengths: np.ndarray) -> list[MicroBatch]:
        """One mini-batch's sequences (lengths [n] in draw order) as micro-batches: fixed rows and length, or a
        token budget per micro-batch (train.max_tokens_per_micro_batch)."""
        s = self.settings
        if s.max_tokens_per_micro_batch:
            return token_budget_micro_batches(lengths, s.max_tokens_per_micro_batch, self.data_parallel)
        rows = s.prompts_per_step * s.group_size // s.steps_per_rollout
        return fixed_micro_batches(len(lengths), rows, s.micro_batch_size, bucket(int(np.max(lengths))))

    def step_plans(self, lengths: np.ndarray, groups: int) -> list[list[MicroBatch]]:
        """The micro-batches of each optimizer step (rows: indices into the step's [n] kept sequences)."""
        return [[MicroBatch(np.where(m.rows >= 0, part[np.maximum(m.rows, 0)], -1), m.length)
                 for m in self.micro_batches(lengths[part])]
                for part in mini_batches(groups, self.settings.group_size, self.settings.steps_per_rollout)]

    def group_advantages(self, group: Group) -> np.ndarray:
        """The group's rewards (reward key), shaped (loss.shaping), through the advantage estimator: [G]."""
        lengths = np.array([len(r) for r in group.response_tokens])
        rewards = self.shaping(group.rewards(self.settings.reward_key), lengths, self.settings.shaping_config)
        return self.advantages(rewards[None])[0]

    def update(self, collection: Collection) -> dict[str, float]:
        """The step's optimizer steps on the collection's kept groups (none when it kept none); its train/
        metrics. The state's step counts the step either way."""
        if not len(collection.kept):
            self.state = self.state._replace(step=self.state.step + 1)
            return {}
        g, records, kept = self.settings.group_size, collection.records, collection.kept
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

        steps, (params, opt_state, step) = [], self.state
        with jax.set_mesh(self.policy.mesh):
            # Old logprobs of the later steps' micro-batches, from the policy that sampled (the first step's
            # are its own, through stop_gradient).
            old = [[self.fns.old_logprobs(params, batch(m)) for m in plan] for plan in plans[1:]]
            for i, plan in enumerate(plans):
                acc = self.fns.zero_accumulator()
                for j, micro in enumerate(plan):
                    acc = self.fns.accumulate(params, acc, batch(micro), old[i - 1][j] if i else None)
                params, opt_state, metrics = self.fns.apply(params, opt_state, acc)
                steps.append(metrics)
        self.state = TrainState(params, opt_state, step + 1)
        return {**train_metrics(steps), "train/micro_batches": len(micro_batches),
                "train/padding_fraction": padding_fraction(lengths, micro_batches)}
