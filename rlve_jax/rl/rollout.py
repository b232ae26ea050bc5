"""The rollout: problems -> G responses each (generation/rollout.py's sample_responses, or a resumable generator's
rows) -> verdicts from the pool -> Groups, the learner's unit. One door, `sample_groups`, for the training steps,
the in-training evaluation and rlve_jax/evaluation/evaluate.py.
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
    staleness_sum: int = 0  # partial rollouts: sum over generated tokens of (step - the version that drew it)
    staleness_max: int = 0
    carried_rows: int = 0  # partial rollouts: unfinished rows carried into the next step
    seconds: dict = dataclasses.field(default_factory=lambda: {"sample": 0.0, "generate": 0.0, "verify": 0.0})


@dataclasses.dataclass
class PendingGroup:
    """A problem whose G rows are still decoding (partial rollouts carry it into the next step)."""

    problem: Problem
    prompt_tokens: list[int]
    rows: list[Row]

    def to_dict(self) -> dict:
        return {"problem": self.problem.to_json(), "prompt_tokens": self.prompt_tokens,
                "rows": [r.to_dict() for r in self.rows]}

    @classmethod
    def from_dict(cls, d: dict) -> "PendingGroup":
        return cls(Problem.from_json(d["problem"]), list(d["prompt_tokens"]), [Row.from_dict(r) for r in d["rows"]])


def sample_groups(policy: Policy, model: nnx.Module, pool: EnvPool, problems: Sequence[Problem],
                  settings: SamplingSettings, key: jax.Array, stats: RolloutStats, generator: Generator, *,
                  prompt_ids: Sequence[int] | None = None, carried: Sequence[PendingGroup] = (),
                  enough: Callable[[list[Group]], bool] | None = None,
                  version: int = 0) -> tuple[list[Group], list[PendingGroup]]:
    """Sample G responses per problem with `model` (policy.sampler_model(params)) and verify them in the pool.
    prompt_ids name the problems in the sampling keys (default 0, 1, ...); prompts longer than
    settings.max_prompt_tokens are skipped (and counted).

    Without `enough`: every row decodes to its end -> (the groups in problem order, []). With it (partial rollouts,
    a resumable generator): the carried groups' rows decode first, with those of `problems`, each group is verified
    once its G rows are done and decoding stops once enough(completed groups) holds -> (the completed groups in
    completion order, the unfinished ones to carry). Carried rows keep their tokens, sampler logprobs, keys and the
    policy version of each token (`version` for the new ones); they continue under `model`.
    """
    start = time.perf_counter()
    ids = range(len(problems)) if prompt_ids is None else prompt_ids
    encoded = []  # (problem, its id, prompt tokens)
    for problem, prompt_id in zip(problems, ids):
        tokens = policy.prompt_format.encode(problem.prompt)
        if settings.max_prompt_tokens and len(tokens) > settings.max_prompt_tokens:
            stats.skipped_long_prompts += 1
        else:
            encoded.append((problem, prompt_id, tokens))
    stats.seconds["sample"] += time.perf_counter() - start
    if enough is None:
        return _decoded_groups(policy, model, pool, encoded, settings, key, stats, generator), []
    pending = [*carried, *(PendingGroup(problem, tokens, [
        Row(prompt_id * settings.samples + g, tokens, settings.max_new_tokens, settings.temperature, settings.top_p,
            settings.top_k) for g in range(settings.samples)]) for problem, prompt_id, tokens in encoded)]
    return _resumed_groups(policy, model, pool, pending, key, stats, generator, enough, version)


def _decoded_groups(policy: Policy, model: nnx.Module, pool: EnvPool, encoded: list[tuple[Problem, int, list[int]]],
                    settings: SamplingSettings, key: jax.Array, stats: RolloutStats,
                    generator: Generator) -> list[Group]:
    """Every row of every encoded problem decoded to its end, then verified."""
    if not encoded:
        return []
    problems, ids, prompts = (list(x) for x in zip(*encoded))
    start = time.perf_counter()
    responses = sample_responses(generator, model, policy.tokenizer, prompts, settings, key, ids)
    out = responses.output
    stats.seconds["generate"] += time.perf_counter() - start
    stats.generated_tokens += int(out.lengths.sum())
    stats.sampled_logprob_sum += float(out.logprobs.sum(dtype=np.float64))  # 0 after each row's stop token
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, out.peak_cache_bytes)
    start = time.perf_counter()
    g = settings.samples
    verdicts = _verify(policy, pool, [problems[i // g] for i in range(len(responses.texts))], responses.texts, stats)
    stats.seconds["verify"] += time.perf_counter() - start
    rows = [slice(i * g, (i + 1) * g) for i in range(len(problems))]
    return [Group(problem, prompts[i], responses.tokens[rows[i]], responses.texts[rows[i]],
                  [out.logprobs[j, :out.lengths[j]] for j in range(rows[i].start, rows[i].stop)],
                  out.truncated[rows[i]].tolist(), verdicts[rows[i]])
            for i, problem in enumerate(problems)]


def _resumed_groups(policy: Policy, model: nnx.Module, pool: EnvPool, pending: list[PendingGroup], key: jax.Array,
                    stats: RolloutStats, generator: Generator, enough: Callable[[list[Group]], bool],
                    version: int) -> tuple[list[Group], list[PendingGroup]]:
    """The pending groups' rows decoded by a resumable generator until enough(completed groups)."""
    completed: list[Group] = []
    verify_seconds = 0.0

    def check() -> bool:
        nonlocal pending, verify_seconds
        ready = [g for g in pending if all(r.done for r in g.rows)]
        if ready:
            begin = time.perf_counter()
            completed.extend(verify_groups(policy, pool, ready, stats, version))
            pending = [g for g in pending if not all(r.done for r in g.rows)]
            verify_seconds += time.perf_counter() - begin
        return enough(completed)

    start = time.perf_counter()
    generator.run(model, [r for g in pending for r in g.rows], key, should_stop=check, version=version)
    check()  # the groups the last segment completed
    stats.seconds["generate"] += time.perf_counter() - start - verify_seconds
    stats.seconds["verify"] += verify_seconds
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, generator.peak_cache_bytes)
    return completed, pending


def verify_groups(policy: Policy, pool: EnvPool, pending: Sequence[PendingGroup], stats: RolloutStats,
                  version: int) -> list[Group]:
    """Groups whose rows are all done -> verified Groups (their tokens, staleness and verdicts counted)."""
    rows = [r for g in pending for r in g.rows]
    stats.generated_tokens += sum(len(r.tokens) for r in rows)
    stats.sampled_logprob_sum += float(sum(sum(r.logprobs) for r in rows))
    ages = [version - v for r in rows for v in r.versions]
    stats.staleness_sum += int(sum(ages))
    stats.staleness_max = max([stats.staleness_max, *ages])
    texts = [policy.tokenizer.decode(r.tokens, skip_special_tokens=True) for r in rows]
    verdicts = _verify(policy, pool, [g.problem for g in pending for _ in g.rows], texts, stats)
    groups, start = [], 0
    for g in pending:
        n = len(g.rows)
        groups.append(Group(g.problem, g.prompt_tokens, [r.tokens for r in g.rows], texts[start:start + n],
                            [np.asarray(r.logprobs, np.float32) for r in g.rows],
                            [not r.finished and len(r.tokens) == r.max_new_tokens for r in g.rows],
                            verdicts[start:start + n]))
        start += n
    return groups


def _verify(policy: Policy, pool: EnvPool, problems: list[Problem], texts: list[str],
            stats: RolloutStats) -> list[Verdict]:
    """The pool's verdicts in the policy's answer markers; its timeouts, crashes and errors counted."""
    verdicts = pool.verify(problems, texts, policy.prompt_format.markers)
    reasons = count_reasons(verdicts)
    stats.verifier_timeouts += reasons.get("timeout", 0)
    stats.verifier_crashes += reasons.get("crash", 0)
    stats.verifier_errors += reasons.get("error", 0)
    return verdicts
