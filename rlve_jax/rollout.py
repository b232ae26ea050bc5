"""One rollout: problems -> G responses per problem -> verdicts.

Shared by the trainer (RL steps, in-training evaluation) and rlve_jax/evaluate.py.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Sequence

import jax
import numpy as np
from flax import nnx

from rlve_jax import sampler
from rlve_jax.env import Problem, Verdict
from rlve_jax.policy import Policy
from rlve_jax.pool import EnvPool, count_reasons
from rlve_jax.tokenizer import PromptFormat


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
                  settings: SamplingSettings, key: jax.Array, stats: RolloutStats,
                  prompt_ids: Sequence[int] | None = None) -> list[Group]:
    """Sample G responses per problem with `model` (policy.sampler_model()) and verify them in the pool.

    prompt_ids name the problems in the sampling keys (default 0, 1, ...; see sampler.generate).
    """
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
    out = sampler.generate(
        model, prompts, n_per_prompt=settings.samples, max_new_tokens=settings.max_new_tokens,
        temperature=settings.temperature, top_p=settings.top_p, top_k=settings.top_k, stop_ids=policy.stop_ids,
        rng=key, mesh=policy.sampler_mesh, cache_budget_tokens=settings.cache_budget_tokens,
        pad_id=policy.tokenizer.pad_id, prompt_ids=ids)
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


def answer_completion(prompt_format: PromptFormat, answer: str) -> str:
    """The response text that states `answer` in the format's markers (for the warm start)."""
    start, end = prompt_format.markers
    closing = "</think>\n" if prompt_format.name == "tinyzero" else ""  # the tinyzero prompt opens <think>
    return f"{closing}{start}{answer}{end}"
