"""The rollout: problems -> G responses each (generation/rollout.py's sample_responses, or a resumable generator's
rows) -> verdicts from the pool -> Groups, the learner's unit. One door, `sample_groups`, for the training steps,
the in-training evaluation and rlve_jax/evaluation/evaluate.py; partial rollouts' rounds (`partial_round`) carry
the groups they leave unfinished into the next step.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

import jax
import numpy as np
from flax import nnx

from rlve_jax.generation.engine import Row
from rlve_jax.generation.generator import Generator, SamplingSettings
from rlve_jax.generation.rollout import sample_responses
from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.gym.pool import EnvPool, count_reasons
from rlve_jax.models.policy import Policy


@dataclasses.dataclass
class Group:
    """One prompt and its G sampled responses with their verdicts."""

    problem: Problem
    prompt_tokens: list[int]
    response_tokens: list[list[int]]
    response_texts: list[str]
    sampler_logprobs: list[np.ndarray]
    truncated: list[bool]
    verdicts: list[Verdict]

    def rewards(self, key: str) -> np.ndarray:
        """The verdicts' shaped reward ("reward") or binary accuracy ("accuracy")."""
        return np.array([v.reward if key == "reward" else float(v.accuracy) for v in self.verdicts], np.float32)


@dataclasses.dataclass
class RolloutStats:
    drawn_groups: int = 0
    kept_groups: int = 0
    failed_generations: int = 0
    skipped_long_prompts: int = 0
    rounds: int = 0
    generated_tokens: int = 0
    peak_cache_bytes: int = 0  # the sampler's largest KV cache (one chunk on one process)
    sampled_logprob_sum: float = 0.0  # the sampler's logprobs of every generated token, summed (entropy)
    verifier_timeouts: int = 0  # verdicts the pool cut at its time limit
    verifier_crashes: int = 0  # verdicts whose worker process died (memory limit, segfault)
    verifier_errors: int = 0  # verdicts where the scorer raised
    staleness_sum: int = 0  # sum over generated tokens of (step - the version that drew it)
    staleness_max: int = 0
    carried_rows: int = 0  # partial rollouts: unfinished rows carried into the next step
    seconds: dict = dataclasses.field(default_factory=lambda: {"sample": 0.0, "generate": 0.0, "verify": 0.0})


@dataclasses.dataclass
class PendingGroup:
    """A problem whose G rows are decoding (partial rollouts carry it into the next step)."""

    problem: Problem
    prompt_tokens: list[int]
    rows: list[Row]
    draw: tuple[int, int, int]  # (step, round, index) of the draw that made it: orders a round's groups


def encoded(policy: Policy, problems: Sequence[Problem], settings: SamplingSettings, stats: RolloutStats,
            prompt_ids: Sequence[int]) -> list[tuple[Problem, int, list[int]]]:
    """(problem, its id, prompt tokens) of each problem whose prompt fits settings.max_prompt_tokens (the others
    are skipped and counted)."""
    start = time.perf_counter()
    out = []
    for problem, prompt_id in zip(problems, prompt_ids):
        tokens = policy.prompt_format.encode(problem.prompt)
        if settings.max_prompt_tokens and len(tokens) > settings.max_prompt_tokens:
            stats.skipped_long_prompts += 1
        else:
            out.append((problem, prompt_id, tokens))
    stats.seconds["sample"] += time.perf_counter() - start
    return out


def sample_groups(policy: Policy, model: nnx.Module, pool: EnvPool, problems: Sequence[Problem],
                  settings: SamplingSettings, key: jax.Array, stats: RolloutStats, generator: Generator, *,
                  prompt_ids: Sequence[int] | None = None) -> list[Group]:
    """Sample G responses per problem with `model` (policy.sampler_model(params)), every row to its end, and verify
    them in the pool: the groups in problem order. prompt_ids name the problems in the sampling keys (default 0, 1,
    ...); prompts longer than settings.max_prompt_tokens are skipped (and counted)."""
    ids = range(len(problems)) if prompt_ids is None else prompt_ids
    todo = encoded(policy, problems, settings, stats, ids)
    if not todo:
        return []
    problems, ids, prompts = (list(x) for x in zip(*todo))
    start = time.perf_counter()
    responses = sample_responses(generator, model, policy.tokenizer, prompts, settings, key, ids)
    out = responses.output
    stats.seconds["generate"] += time.perf_counter() - start
    stats.generated_tokens += int(out.lengths.sum())
    stats.sampled_logprob_sum += float(out.logprobs.sum(dtype=np.float64))  # 0 after each row's stop token
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, out.peak_cache_bytes)
    start = time.perf_counter()
    g = settings.samples
    verdicts = pool.verify([problems[i // g] for i in range(len(responses.texts))], responses.texts,
                           policy.prompt_format.markers)
    count_verdicts(verdicts, stats)
    stats.seconds["verify"] += time.perf_counter() - start
    rows = [slice(i * g, (i + 1) * g) for i in range(len(problems))]
    return [Group(problem, prompts[i], responses.tokens[rows[i]], responses.texts[rows[i]],
                  [out.logprobs[j, :out.lengths[j]] for j in range(rows[i].start, rows[i].stop)],
                  out.truncated[rows[i]].tolist(), verdicts[rows[i]])
            for i, problem in enumerate(problems)]


def pending_groups(todo: Sequence[tuple[Problem, int, list[int]]], settings: SamplingSettings, step: int,
                   round_index: int) -> list[PendingGroup]:
    """Encoded problems (`encoded`) as groups of G fresh rows (row id prompt_id * G + g) drawn at (step, round)."""
    return [PendingGroup(problem, tokens, [Row(prompt_id * settings.samples + g, tokens, settings.max_new_tokens,
                                               settings.temperature, settings.top_p, settings.top_k)
                                           for g in range(settings.samples)], (step, round_index, prompt_id))
            for problem, prompt_id, tokens in todo]


def partial_round(policy: Policy, model: nnx.Module, pool: EnvPool, pending: list[PendingGroup], key: jax.Array,
                  stats: RolloutStats, generator: Generator, *, version: int, first_steps: int,
                  stop_length: Callable[[list[tuple[int, Group]], bool], int | None]
                  ) -> tuple[list[tuple[tuple[int, ...], Group]], list[PendingGroup]]:
    """Partial rollouts' round (a resumable generator): the pending groups' rows decoded as if in lockstep, one
    token each per tick, until the tick at which enough groups are complete, the rest carried.

    A group's length is the tokens its longest row decodes in this round; `stop_length(complete groups with their
    lengths, whether rows still decode)` names the round's stop length once it is known (None: decode on). The
    rows decode in phases of first_steps, then as many tokens again as were decoded (doubling), each group
    verified once its rows are done; a phase's end asks stop_length. At the stop length L, the groups no longer
    than L are the round's -> ((length, *draw) and the group of each: the order in which lockstep decoding
    completes them, ties in draw order), and the others are carried, each row cut back to the tokens it had at
    tick L: which groups complete depends on the rows' lengths alone, not on the engine's slots,
    segments or phases (nor on the process count). Carried rows keep their tokens, sampler logprobs, keys and the
    policy version of each token (`version` for this round's); they continue under a later model.
    """
    start = {id(r): len(r.tokens) for g in pending for r in g.rows}
    complete: list[tuple[int, Group, PendingGroup]] = []
    waiting, decoded, steps = list(pending), 0, first_steps
    generate_seconds = verify_seconds = 0.0
    while True:
        begin = time.perf_counter()
        generator.run(model, [r for g in waiting for r in g.rows if not r.done], key, steps=steps, version=version)
        decoded += steps
        generate_seconds += time.perf_counter() - begin
        begin = time.perf_counter()
        ready = [g for g in waiting if all(r.done for r in g.rows)]
        waiting = [g for g in waiting if not all(r.done for r in g.rows)]
        if ready:
            complete += [(max(len(r.tokens) - start[id(r)] for r in g.rows), group, g)
                         for g, group in zip(ready, verified_groups(policy, pool, ready))]
        verify_seconds += time.perf_counter() - begin
        stop = stop_length([(n, group) for n, group, _ in complete], bool(waiting))
        if stop is not None:
            break
        steps = decoded
    stats.seconds["generate"] += generate_seconds
    stats.seconds["verify"] += verify_seconds
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, generator.peak_cache_bytes)
    done = [(n, group, g) for n, group, g in complete if n <= stop]
    carried = sorted([g for n, _, g in complete if n > stop] + waiting, key=lambda g: g.draw)
    for row in (r for g in carried for r in g.rows):
        cut = start[id(row)] + stop
        if len(row.tokens) > cut:
            del row.tokens[cut:], row.logprobs[cut:], row.versions[cut:]
            row.finished = row.done = False
    for _, group, g in done:
        count_verdicts(group.verdicts, stats)
        tokens = [v for r in g.rows for v in r.versions]
        stats.generated_tokens += len(tokens)
        stats.sampled_logprob_sum += float(sum(sum(r.logprobs) for r in g.rows))
        stats.staleness_sum += sum(version - v for v in tokens)
        stats.staleness_max = max([stats.staleness_max, *(version - v for v in tokens)])
    return [((n, *g.draw), group) for n, group, g in done], carried


def verified_groups(policy: Policy, pool: EnvPool, pending: Sequence[PendingGroup]) -> list[Group]:
    """Groups whose rows are all done -> Groups with the pool's verdicts (counted by the caller)."""
    rows = [r for g in pending for r in g.rows]
    texts = [policy.tokenizer.decode(r.tokens, skip_special_tokens=True) for r in rows]
    verdicts = pool.verify([g.problem for g in pending for _ in g.rows], texts, policy.prompt_format.markers)
    groups, start = [], 0
    for g in pending:
        n = len(g.rows)
        groups.append(Group(g.problem, g.prompt_tokens, [list(r.tokens) for r in g.rows], texts[start:start + n],
                            [np.asarray(r.logprobs, np.float32) for r in g.rows],
                            [not r.finished and len(r.tokens) == r.max_new_tokens for r in g.rows],
                            verdicts[start:start + n]))
        start += n
    return groups


def count_verdicts(verdicts: Sequence[Verdict], stats: RolloutStats) -> None:
    """The pool's timeouts, crashes and errors among these verdicts, into the stats."""
    reasons = count_reasons(verdicts)
    stats.verifier_timeouts += reasons.get("timeout", 0)
    stats.verifier_crashes += reasons.get("crash", 0)
    stats.verifier_errors += reasons.get("error", 0)
