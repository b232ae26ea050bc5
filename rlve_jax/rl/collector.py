"""Rollout collection for one training step: rounds of draws -> problems -> G responses -> verdicts,
dynamic sampling until the batch is full, and the step's rollout metrics. The Collector is the Trainer's
batch source (`BatchSource`) when batches are collected in the loop.

Every process holds the same scheduler and makes the same draws; each generates, samples and
verifies its own contiguous share of them. The verdicts are all-gathered each round as
`GroupRecords`, so the scheduler update and the keep decisions agree on every process, and
the kept groups are named in draw order: results do not depend on the process count. Sampling
keys are derived from (seed, step, round, draw index).

Partial rollouts: each process decodes its own groups and the ones it carries (owned by the process that
generated them); the round stops at the length where every process's completed groups fill the batch
(rl/rollout.partial_round, the lengths all-gathered), so the keep and carry decisions are the same on every
process and for any process count; a round's records are ordered by (length, draw). A checkpoint holds every
process's carried rows (`state_dict`); a resume on another process count deals them out anew.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import time
from typing import NamedTuple, Protocol, Sequence

import jax
import numpy as np
from flax import nnx

from rlve_jax.generation.generator import Generator, SamplingSettings
from rlve_jax.gym.pool import EnvPool, FailureBudgetExceeded, failure_budget_message
from rlve_jax.gym.scheduler import Rollout, Scheduler, steered_draws
from rlve_jax.models.policy import Policy
from rlve_jax.rl.filters import GROUP_FILTERS, informative
from rlve_jax.rl import batch_arrays
from rlve_jax.rl.rollout import Group, PendingGroup, RolloutStats, encoded, partial_round, pending_groups, sample_groups
from rlve_jax.runtime import distributed


class GroupRecords(NamedTuple):
    """What every process knows of every generated group of a step, whichever process holds it.

    One row per group, in draw order, identical on every process (all-gathered each round).
    """

    owner: np.ndarray  # [N] int32, the process that generated, sampled and verified it
    env: np.ndarray  # [N] int32, index into the run's environment list
    difficulty: np.ndarray  # [N] int32
    prompt_length: np.ndarray  # [N] int32, prompt tokens
    informative: np.ndarray  # [N] bool, its rewards (config.env.reward_key) are not all equal
    passes: np.ndarray  # [N] bool, rollout.group_filter keeps it
    reward: np.ndarray  # [N, G] float64, the verdicts' shaped reward
    accuracy: np.ndarray  # [N, G] bool
    format_ok: np.ndarray  # [N, G] bool
    length: np.ndarray  # [N, G] int32, response tokens
    truncated: np.ndarray  # [N, G] bool


@dataclasses.dataclass
class Collection:
    """One step's rollouts: this process's groups, every process's records, the kept records."""

    mine: list[Group]  # the groups this process generated, in draw order
    records: GroupRecords  # every generated group of the step, on every process
    kept: np.ndarray  # [K] int64, indices into records of the groups the update uses, in draw order
    stats: RolloutStats  # summed over processes
    failures: dict[str, int]  # this process's failed pool items (FailureTally.metrics), per environment too

    def rollouts(self, env_names: Sequence[str]) -> list[Rollout]:
        """What the scheduler counts: every generated response's environment, level and accuracy, and its group (the
        record's row)."""
        r = self.records
        return [Rollout(env_names[env], int(difficulty), float(accuracy), group=row)
                for row, (env, difficulty, accuracies) in enumerate(zip(r.env, r.difficulty, r.accuracy))
                for accuracy in accuracies]


def rank_within(owner: np.ndarray) -> np.ndarray:
    """Each entry's index among the entries with the same owner: [N] -> [N]."""
    rank = np.zeros(len(owner), np.int64)
    for q in np.unique(owner):
        rank[owner == q] = np.arange(np.sum(owner == q))
    return rank


@dataclasses.dataclass(frozen=True)
class CollectorSettings:
    """Dynamic sampling's settings (the rollout section's) and the run's that name and judge its draws."""

    sampling: SamplingSettings  # G = sampling.samples responses per problem
    prompts_per_step: int  # groups kept per step
    oversample_prompts: int  # problems drawn per round
    max_rounds: int  # rounds before a step trains on what it kept
    group_filter: str  # GROUP_FILTERS: which groups a step keeps
    partial_rollouts: bool  # stop decoding once a round's completed groups fill the batch; carry the rest
    segment_steps: int  # partial rollouts: tokens per row in a round's first decoding phase (then doubling)
    reward_key: str  # "reward" (shaped) or "accuracy" (binary): what the group filter reads
    max_failure_share: float  # the step stops the run past this share of failed generations or verifications
    seed: int  # the run's: sampling keys derive from (seed, step, round)
    steered_oversampling: bool = False  # draw each round what the scheduler expects to fill the batch (<= oversample)


class BatchSource(Protocol):
    """Where the Trainer takes each step's batch: collected in the loop (Collector), or ahead, on a rollout mesh of
    its own, while the learner updates (rl/async_collector.AsyncCollector). Its state (the rows it carries, the
    batch it holds ahead) is saved with each checkpoint."""

    def take(self, step: int, params) -> Collection:
        """Batch `step`; `params`: the learner's, after `step` updates."""

    def ahead(self, step: int, params, version: int) -> None:
        """A chance to start collecting batch `step` in the background, with `params` (after `version` updates)."""

    def settle(self) -> None:
        """Return once nothing runs in the background (the pool and the rollout devices are free)."""

    def seconds(self) -> dict[str, float]:
        """time/ metrics of the waiting and copying done for it since the last call."""

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: dict) -> None: ...

    def close(self) -> None: ...


class Collector:
    """Draws problems from the scheduler and turns them into verified groups until a step's batch is full; the
    BatchSource that collects each step's batch when the Trainer takes it."""

    def __init__(self, policy: Policy, pool: EnvPool, scheduler: Scheduler, generator: Generator, *,
                 env_names: Sequence[str], settings: CollectorSettings):
        self.policy, self.pool, self.scheduler, self.generator = policy, pool, scheduler, generator
        self.env_names, self.settings = list(env_names), settings
        self.group_filter = GROUP_FILTERS[settings.group_filter]
        if settings.partial_rollouts and not generator.resumable:
            raise TypeError("partial rollouts decode in the continuous Engine (rollout.engine='continuous')")
        self.carried: list[PendingGroup] = []  # partial rollouts: this process's groups still decoding

    # -- the batch source ---------------------------------------------------
    def take(self, step: int, params) -> Collection:
        start = time.perf_counter()
        model = self.policy.sampler_model(params)  # the training parameters, on this process's sampler
        return self.collect(step, model, step, reshard_seconds=time.perf_counter() - start)

    def ahead(self, step: int, params, version: int) -> None:
        """Nothing: each batch is collected when it is taken."""

    def settle(self) -> None:
        """Nothing runs in the background."""

    def seconds(self) -> dict[str, float]:
        return {}

    def state_dict(self) -> dict:
        """What an exact resume needs: every process's carried groups (their rows' tokens, logprobs, keys,
        versions) as arrays, with the process that holds each."""
        everyone = [batch_arrays.pending_from_arrays(batch_arrays.from_bytes(payload)) for payload in
                    distributed.allgather_bytes(batch_arrays.to_bytes(batch_arrays.pending_to_arrays(self.carried)))]
        return {"carried": batch_arrays.pending_to_arrays([g for own in everyone for g in own]),
                "carried_owner": np.array([q for q, own in enumerate(everyone) for _ in own], np.int32),
                "processes": len(everyone)}

    def load_state_dict(self, state: dict) -> None:
        """This process's carried groups: those it held, on the same process count; on another, a contiguous share
        of all of them in draw order."""
        if "processes" not in state:  # an older checkpoint, its carried rows (if any) as JSON
            if state.get("carried"):
                raise ValueError("this checkpoint's carried rows are in an older format: resume it with the version "
                                 "that wrote it")
            return
        carried = batch_arrays.pending_from_arrays(state["carried"])
        if state["processes"] == jax.process_count():
            self.carried = [g for g, q in zip(carried, state["carried_owner"]) if q == jax.process_index()]
        else:
            self.carried = sorted(carried, key=lambda g: g.draw)[distributed.process_slice(len(carried))]

    def close(self) -> None:
        """Nothing to release (the pool is the Trainer's)."""

    # -- dynamic sampling ---------------------------------------------------
    def sampling_key(self, step: int, round_index: int) -> jax.Array:
        return jax.random.fold_in(jax.random.fold_in(jax.random.key(self.settings.seed), step), round_index)

    def collect(self, step: int, model: nnx.Module, version: int, reshard_seconds: float = 0.0) -> Collection:
        """Dynamic sampling: draw rounds until enough groups with unequal rewards are kept.

        `model`: the sampler's weights, those after `version` updates (reshard_seconds: what placing them took);
        the staleness metrics count step - version per token on top of the partial rollouts' own lag.
        Raises FailureBudgetExceeded on every process when one lost more than env.max_failure_share of
        the step's generations or verifications.
        """
        s = self.settings
        self.pool.take_tally()  # count this step's items only (not an evaluation's before it)
        stats = RolloutStats()
        stats.seconds["reshard"] = reshard_seconds
        mine: list[Group] = []
        rounds: list[GroupRecords] = []
        kept: list[int] = []
        for round_index in range(s.max_rounds):
            start = time.perf_counter()
            draws = (steered_draws(self.scheduler, s.prompts_per_step - len(kept), s.oversample_prompts,
                                   s.sampling.samples) if s.steered_oversampling
                     else [self.scheduler.sample() for _ in range(s.oversample_prompts)])  # the same on every process
            share = distributed.process_slice(len(draws))
            problems = self.pool.generate([(d.env, d.difficulty, d.seed) for d in draws[share]])
            stats.failed_generations += sum(p is None for p in problems)
            stats.seconds["sample"] += time.perf_counter() - start
            ids = [share.start + i for i, p in enumerate(problems) if p is not None]
            valid = [p for p in problems if p is not None]
            key = self.sampling_key(step, round_index)
            if s.partial_rollouts:
                need = s.prompts_per_step - len(kept)
                pending = [*self.carried, *pending_groups(encoded(self.policy, valid, s.sampling, stats, ids),
                                                          s.sampling, step, round_index)]
                ordered, self.carried = partial_round(
                    self.policy, model, self.pool, pending, key, stats, self.generator, version=version,
                    first_steps=s.segment_steps, stop_length=functools.partial(self.stop_length, need=need))
            else:
                groups = sample_groups(self.policy, model, self.pool, valid, s.sampling, key, stats, self.generator,
                                       prompt_ids=ids)
                ordered = [((0, step, round_index, share.start + i), g) for i, g in enumerate(groups)]  # draw order
            ordered.sort(key=lambda pair: pair[0])
            stats.rounds += 1
            first = sum(len(r.owner) for r in rounds)
            rounds.append(self.gather_records([g for _, g in ordered], [order for order, _ in ordered]))
            mine += [g for _, g in ordered]
            for i, passes in enumerate(rounds[-1].passes):
                if passes and len(kept) < s.prompts_per_step:
                    kept.append(first + i)
            if len(kept) >= s.prompts_per_step:
                break
        records = GroupRecords(*map(np.concatenate, zip(*rounds)))
        stats.carried_rows = sum(not r.done for g in self.carried for r in g.rows)
        summed = ("failed_generations", "skipped_long_prompts", "generated_tokens", "verifier_timeouts",
                  "verifier_crashes", "verifier_errors", "staleness_sum", "carried_rows")
        counts = distributed.allgather(np.array([getattr(stats, f) for f in summed]
                                                + [stats.peak_cache_bytes, stats.staleness_max], np.int64))
        for i, field in enumerate(summed):
            setattr(stats, field, int(counts[:, i].sum()))
        stats.peak_cache_bytes, stats.staleness_max = (int(x) for x in counts[:, len(summed):].max(0))
        stats.sampled_logprob_sum = float(distributed.allgather(np.array([stats.sampled_logprob_sum])).sum())
        stats.drawn_groups, stats.kept_groups = len(records.owner), len(kept)
        if stats.generated_tokens:  # every token's age counted from the sampler's version, plus its lag
            stats.staleness_sum += (step - version) * stats.generated_tokens
            stats.staleness_max += step - version
        failures = self.pool.take_tally()
        message = failure_budget_message(failures, s.max_failure_share, f"step {step + 1}")
        if distributed.any_process(message is not None):  # every process stops at the same step
            raise FailureBudgetExceeded(message or f"step {step + 1}: another process lost more than "
                                                   f"env.max_failure_share={s.max_failure_share:g} of its items")
        return Collection(mine, records, np.array(kept, np.int64), stats, failures.metrics())

    def stop_length(self, complete: list[tuple[int, Group]], decoding: bool, need: int) -> int | None:
        """Partial rollouts: a round's stop length (rl/rollout.partial_round), the same on every process: the least
        length by which `need` groups the batch would keep are complete on all processes together; None while rows
        still decode short of it; no bound once no process has rows decoding."""
        kept = np.array([n for n, group in complete if self.keeps(group)], np.int64)
        lengths = np.sort(np.concatenate([np.frombuffer(payload, np.int64) for payload in
                                          distributed.allgather_bytes(kept.tobytes())]))
        if len(lengths) >= need:
            return int(lengths[need - 1])
        return None if distributed.any_process(decoding) else sys.maxsize

    def keeps(self, group: Group) -> bool:
        """Whether the batch would keep this group (rollout.group_filter on its rewards)."""
        return self.group_filter(group.rewards(self.settings.reward_key))

    def gather_records(self, groups: list[Group], order: list[tuple[int, ...]]) -> GroupRecords:
        """Every process's groups of one round as records (identical on every process), in the order of their
        `order` keys (each process's groups come sorted by them)."""
        g = self.settings.sampling.samples
        capacity = int(distributed.allgather(np.array(len(groups), np.int64)).max())
        local = GroupRecords(
            owner=np.full(capacity, -1, np.int32), env=np.zeros(capacity, np.int32),  # owner -1: an empty slot
            difficulty=np.zeros(capacity, np.int32), prompt_length=np.zeros(capacity, np.int32),
            informative=np.zeros(capacity, bool), passes=np.zeros(capacity, bool), reward=np.zeros((capacity, g)),
            accuracy=np.zeros((capacity, g), bool), format_ok=np.zeros((capacity, g), bool),
            length=np.zeros((capacity, g), np.int32), truncated=np.zeros((capacity, g), bool))
        keys = np.zeros((capacity, 4), np.int64)
        keys[:len(order)] = np.reshape(order, (-1, 4))
        for i, group in enumerate(groups):
            local.owner[i] = jax.process_index()
            local.env[i] = self.env_names.index(group.problem.env)
            local.difficulty[i] = group.problem.difficulty
            local.prompt_length[i] = len(group.prompt_tokens)
            local.informative[i] = informative(group.rewards(self.settings.reward_key))
            local.passes[i] = self.keeps(group)
            local.reward[i] = [v.reward for v in group.verdicts]
            local.accuracy[i] = [v.accuracy for v in group.verdicts]
            local.format_ok[i] = [v.format_ok for v in group.verdicts]
            local.length[i] = [len(r) for r in group.response_tokens]
            local.truncated[i] = group.truncated
        everyone, keys = distributed.allgather((local, keys))  # [P, capacity, ...]
        present = everyone.owner.reshape(-1) >= 0
        keys = keys.reshape(-1, 4)[present]
        order = np.lexsort(keys.T[::-1])  # by the first key, then the next, ...
        return GroupRecords(*(x.reshape(-1, *x.shape[2:])[present][order] for x in everyone))


def rollout_metrics(records: GroupRecords, env_names: Sequence[str], stats: RolloutStats) -> dict[str, float]:
    """Means over every generated response of the step, per-environment accuracy, time split.

    rollout/effective_prompt_ratio is the paper's: the share of generated groups whose G rewards
    are not all equal (informative), whether or not the batch had room for them;
    rollout/effective_prompt_ratio_accuracy counts on the binary accuracy instead (with a shaped reward two
    different wrong answers make a group informative on the reward, not on the accuracy);
    rollout/kept_ratio is the share the update used (capped by prompts_per_step).
    rollout/entropy is the mean over the step's generated tokens of -log pi(token) under the sampling
    distribution (softmax(logits / temperature) over the whole vocabulary): a Monte Carlo estimate of
    the policy's per-token entropy (unbiased with top_p = 1 and top_k off, the training default);
    rollout/entropy_per_response is the same sum per generated response (it does not fall when responses
    merely get longer, as the per-token mean does).
    """
    n = len(records.owner)
    lengths = records.length.reshape(-1) if n else np.zeros(1)
    metrics: dict[str, float] = {
        "rollout/reward": float(np.mean(records.reward)) if n else 0.0,
        "rollout/accuracy": float(np.mean(records.accuracy)) if n else 0.0,
        "rollout/format_ok": float(np.mean(records.format_ok)) if n else 0.0,
        "rollout/response_length_mean": float(lengths.mean()),
        "rollout/response_length_max": float(lengths.max()),
        "rollout/truncation_rate": float(np.mean(records.truncated)) if n else 0.0,
        "rollout/effective_prompt_ratio": float(np.mean(records.informative)) if n else 0.0,
        "rollout/effective_prompt_ratio_accuracy": float(np.mean([informative(a) for a in records.accuracy]))
        if n else 0.0,
        "rollout/kept_ratio": stats.kept_groups / max(stats.drawn_groups, 1),
        "rollout/kept_groups": stats.kept_groups,
        "rollout/drawn_groups": stats.drawn_groups,
        "rollout/rounds": stats.rounds,
        "rollout/failed_generations": stats.failed_generations,
        "rollout/verifier_timeouts": stats.verifier_timeouts,
        "rollout/verifier_crashes": stats.verifier_crashes,
        "rollout/verifier_errors": stats.verifier_errors,
        "rollout/entropy": -stats.sampled_logprob_sum / max(stats.generated_tokens, 1),
        "rollout/entropy_per_response": -stats.sampled_logprob_sum / max(records.length.size, 1),
        "rollout/skipped_long_prompts": stats.skipped_long_prompts,
        "rollout/generate_tokens_per_s": stats.generated_tokens / max(stats.seconds["generate"], 1e-9),
        "rollout/peak_cache_mib": stats.peak_cache_bytes / 2**20,  # one process's sampler KV cache
        "rollout/carried_rows": stats.carried_rows,  # partial rollouts: rows resumed next step
        "rollout/staleness_mean": stats.staleness_sum / max(stats.generated_tokens, 1),  # steps per token
        "rollout/staleness_max": stats.staleness_max,
    }
    for name, seconds in stats.seconds.items():
        metrics[f"time/{name}"] = seconds
    for env in dict.fromkeys(records.env):  # in order of first appearance
        metrics[f"accuracy/{env_names[env]}"] = float(np.mean(records.accuracy[records.env == env]))
    return metrics
