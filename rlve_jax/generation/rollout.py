"""One rollout: problems -> G responses per problem -> verdicts.

Shared by the trainer (RL steps, in-training evaluation) and rlve_jax/evaluation/evaluate.py.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

import jax
import ml_collections
import numpy as np
from flax import nnx

from rlve_jax.generation import engine as engine_lib
from rlve_jax.generation.generator import Generator
from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.models.policy import Policy
from rlve_jax.gym.pool import EnvPool, count_reasons
from rlve_jax.gym.prompts import PromptFormat


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


@dataclasses.dataclass(frozen=True)
class SamplingSettings:
    samples: int  # G responses per problem
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    max_prompt_tokens: int | None = None  # longer prompts are skipped (counted in the stats)
    cache_budget_tokens: int | None = None


def sample_groups(policy: Policy, model: nnx.Module, pool: EnvPool, problems: Sequence[Problem],
                  settings: SamplingSettings, key: jax.Array, stats: RolloutStats, generator: Generator,
                  prompt_ids: Sequence[int] | None = None) -> list[Group]:
    """Sample G responses per problem with `model` (policy.sampler_model()) through `generator` and verify
    them in the pool. prompt_ids name the problems in the sampling keys (default 0, 1, ...)."""
    start = time.perf_counter()
    kept, prompts, ids = [], [], []
    for problem, prompt_id in zip(problems, range(len(problems)) if prompt_ids is None else prompt_ids):
        tokens = policy.encode_prompt(problem)
        if settings.max_prompt_tokens and len(tokens) > settings.max_prompt_tokens:
            stats.skipped_long_prompts += 1
            continue
        kept.append(problem)
        prompts.append(tokens)
        ids.append(prompt_id)
    stats.seconds["sample"] += time.perf_counter() - start
    if not kept:
        return []
    start = time.perf_counter()
    common = dict(n_per_prompt=settings.samples, max_new_tokens=settings.max_new_tokens,
                  temperature=settings.temperature, top_p=settings.top_p, top_k=settings.top_k,
                  stop_ids=policy.stop_ids, rng=key, prompt_ids=ids)
    out = generator.generate(model, prompts, **common)
    stats.seconds["generate"] += time.perf_counter() - start
    stats.generated_tokens += int(out.lengths.sum())
    stats.sampled_logprob_sum += float(out.logprobs.sum(dtype=np.float64))  # 0 after each row's stop token
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, out.peak_cache_bytes)
    start = time.perf_counter()
    responses = [out.tokens[i, :out.lengths[i]].tolist() for i in range(len(out.lengths))]
    texts = [policy.tokenizer.decode(r, skip_special_tokens=True) for r in responses]
    g = settings.samples
    verdicts = pool.verify([kept[i // g] for i in range(len(texts))], texts, policy.prompt_format.markers)
    reasons = count_reasons(verdicts)
    stats.verifier_timeouts += reasons.get("timeout", 0)
    stats.verifier_crashes += reasons.get("crash", 0)
    stats.verifier_errors += reasons.get("error", 0)
    stats.seconds["verify"] += time.perf_counter() - start
    rows = [slice(i * g, (i + 1) * g) for i in range(len(kept))]
    return [Group(problem, prompts[i], responses[rows[i]], texts[rows[i]],
                  [out.logprobs[j, :out.lengths[j]] for j in range(rows[i].start, rows[i].stop)],
                  out.truncated[rows[i]].tolist(), verdicts[rows[i]])
            for i, problem in enumerate(kept)]


@dataclasses.dataclass
class PendingGroup:
    """A problem whose G rows are still decoding (partial rollouts carry it into the next step)."""

    problem: Problem
    prompt_tokens: list[int]
    rows: list[engine_lib.Row]

    def to_dict(self) -> dict:
        return {"problem": self.problem.to_json(), "prompt_tokens": self.prompt_tokens,
                "rows": [r.to_dict() for r in self.rows]}

    @classmethod
    def from_dict(cls, d: dict) -> "PendingGroup":
        return cls(Problem.from_json(d["problem"]), list(d["prompt_tokens"]),
                   [engine_lib.Row.from_dict(r) for r in d["rows"]])


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
    verdicts = pool.verify([g.problem for g in pending for _ in g.rows], texts, policy.prompt_format.markers)
    reasons = count_reasons(verdicts)
    stats.verifier_timeouts += reasons.get("timeout", 0)
    stats.verifier_crashes += reasons.get("crash", 0)
    stats.verifier_errors += reasons.get("error", 0)
    groups, start = [], 0
    for g in pending:
        n = len(g.rows)
        groups.append(Group(g.problem, g.prompt_tokens, [r.tokens for r in g.rows], texts[start:start + n],
                            [np.asarray(r.logprobs, np.float32) for r in g.rows],
                            [not r.finished and len(r.tokens) == r.max_new_tokens for r in g.rows],
                            verdicts[start:start + n]))
        start += n
    return groups


def sample_groups_partial(policy: Policy, model: nnx.Module, pool: EnvPool, problems: Sequence[Problem],
                          settings: SamplingSettings, key: jax.Array, stats: RolloutStats, *,
                          prompt_ids: Sequence[int], engine: engine_lib.Engine, carried: Sequence[PendingGroup],
                          enough: Callable[[list[Group]], bool],
                          version: int) -> tuple[list[Group], list[PendingGroup]]:
    """Partial rollouts: decode the carried groups' rows (first) with those of `problems`, verify each
    group once its G rows are done, and stop decoding once enough(completed groups) holds.

    -> (the completed groups in completion order, the unfinished ones to carry). Carried rows keep
    their tokens, sampler logprobs, keys and the version of each token; they continue under `model`.
    """
    start = time.perf_counter()
    pending = list(carried)
    for problem, prompt_id in zip(problems, prompt_ids):
        tokens = policy.encode_prompt(problem)
        if settings.max_prompt_tokens and len(tokens) > settings.max_prompt_tokens:
            stats.skipped_long_prompts += 1
            continue
        pending.append(PendingGroup(problem, tokens, [
            engine_lib.Row(prompt_id * settings.samples + g, tokens, settings.max_new_tokens, settings.temperature,
                           settings.top_p, settings.top_k) for g in range(settings.samples)]))
    stats.seconds["sample"] += time.perf_counter() - start
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
    engine.run(model, [r for g in pending for r in g.rows], key, stop_ids=policy.stop_ids, should_stop=check,
               version=version)
    check()  # the groups the last segment completed
    stats.seconds["generate"] += time.perf_counter() - start - verify_seconds
    stats.seconds["verify"] += verify_seconds
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, engine.peak_cache_bytes)
    return completed, pending


def answer_completion(prompt_format: PromptFormat, answer: str) -> str:
    """The response text that states `answer` in the format's markers (for the warm start)."""
    start, end = prompt_format.markers
    closing = "</think>\n" if prompt_format.name == "tinyzero" else ""  # the tinyzero prompt opens <think>
    return f"{closing}{start}{answer}{end}"


def eval_settings(eval_config: ml_collections.ConfigDict, rollout: ml_collections.ConfigDict,
                  samples: int) -> SamplingSettings:
    """Sampling for evaluation: the eval section's temperature, top-p and length (else the rollout's), every
    prompt kept, the rollout's KV budget."""
    max_new_tokens = eval_config.max_response_tokens or rollout.max_response_tokens
    return SamplingSettings(samples=samples, max_new_tokens=max_new_tokens,
                            temperature=eval_config.temperature, top_p=eval_config.top_p,
                            cache_budget_tokens=rollout.cache_budget_tokens or None)
