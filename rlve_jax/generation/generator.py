"""One generation interface for training and evaluation: the continuous engine or the static sampler.

Both draw the same tokens from the same keys (row key = fold_in(rng, prompt_id * G + g)); they differ
in memory and speed, and only the engine's rows can stop early and resume later (partial rollouts).
`make_generator` picks the configured one (`rollout.engine`) for a policy; training's rollouts and every
evaluation sample through it (generation/rollout.py's `sample_responses`).
"""

from __future__ import annotations

import dataclasses
from typing import Protocol, Sequence

import jax
import numpy as np
from jax.sharding import Mesh

from rlve_jax.generation import engine as engine_lib
from rlve_jax.generation import sampler
from rlve_jax.generation.engine import Row
from rlve_jax.generation.sampler import SampleOutput
from rlve_jax.models.model import Transformer
from rlve_jax.models.policy import Policy

ENGINES = ("continuous", "static")


@dataclasses.dataclass(frozen=True)
class SamplingSettings:
    samples: int  # G responses per prompt
    max_new_tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    max_prompt_tokens: int | None = None  # longer prompts are skipped (counted in the stats)
    cache_budget_tokens: int | None = None


@dataclasses.dataclass(frozen=True)
class GeneratorSettings:
    """The rollout section's choice of generator."""

    engine: str  # ENGINES
    segment_steps: int  # continuous: decode steps per jitted segment


class Generator(Protocol):
    """G continuations of each prompt: sampler.generate's contract, the policy's stop ids.

    Resumable rows are the protocol's optional part: a generator whose `resumable` is true also has
    `run(model, rows, key, *, steps, version)` over engine.Rows that carry their tokens, logprobs and key (each row
    decodes at most `steps` more tokens, and the rows not done continue in a later run, under the same or new
    parameters: partial rollouts) and `peak_cache_bytes`, its largest KV cache."""

    resumable: bool

    def generate(self, model: Transformer, prompts: Sequence[Sequence[int]], settings: SamplingSettings, *,
                 rng: jax.Array, prompt_ids: Sequence[int] | None = None) -> SampleOutput: ...


class StaticGenerator:
    """sampler.generate in static chunks of prompts (each chunk decodes until its longest row ends)."""

    resumable = False

    def __init__(self, mesh: Mesh, pad_id: int, stop_ids: Sequence[int], cache_budget_tokens: int | None):
        self.mesh, self.pad_id, self.stop_ids = mesh, pad_id, list(stop_ids)
        self.cache_budget_tokens = cache_budget_tokens

    def generate(self, model: Transformer, prompts: Sequence[Sequence[int]], settings: SamplingSettings, *,
                 rng: jax.Array, prompt_ids: Sequence[int] | None = None) -> SampleOutput:
        s = settings
        return sampler.generate(model, prompts, n_per_prompt=s.samples, max_new_tokens=s.max_new_tokens,
                                temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, stop_ids=self.stop_ids,
                                rng=rng, prompt_ids=prompt_ids, mesh=self.mesh, pad_id=self.pad_id,
                                cache_budget_tokens=self.cache_budget_tokens)


class ContinuousGenerator:
    """The rollout engine (engine.Engine): decode slots refilled as rows finish; resumable."""

    resumable = True

    def __init__(self, engine: engine_lib.Engine, stop_ids: Sequence[int]):
        self.engine, self.stop_ids = engine, list(stop_ids)

    @property
    def peak_cache_bytes(self) -> int:
        return self.engine.peak_cache_bytes

    def generate(self, model: Transformer, prompts: Sequence[Sequence[int]], settings: SamplingSettings, *,
                 rng: jax.Array, prompt_ids: Sequence[int] | None = None) -> SampleOutput:
        s = settings
        return self.engine.generate(model, prompts, n_per_prompt=s.samples, max_new_tokens=s.max_new_tokens,
                                    temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, stop_ids=self.stop_ids,
                                    rng=rng, prompt_ids=prompt_ids)

    def run(self, model: Transformer, rows: Sequence[Row], key: jax.Array, *, steps: int | None = None,
            version: int = 0) -> list[Row]:
        """engine.Engine.run with the policy's stop ids: rows decoded until done or `steps` more tokens."""
        return self.engine.run(model, rows, key, stop_ids=self.stop_ids, steps=steps, version=version)


def make_generator(kind: str, policy: Policy, *, max_prompt_tokens: int | None, max_new_tokens: int,
                   cache_budget_tokens: int | None, segment_steps: int = 16) -> Generator:
    """The configured generator on the policy's sampler mesh. The engine sizes its slots for prompts of up to
    max_prompt_tokens and responses of max_new_tokens; its default KV budget (cache_budget_tokens None) is
    what the sampler's devices have free now, less the sampler's own copy of the parameters."""
    if kind not in ENGINES:
        raise ValueError(f"rollout.engine must be one of {ENGINES}, got {kind!r}")
    mesh = policy.sampler_mesh
    if kind == "static":
        return StaticGenerator(mesh, policy.tokenizer.pad_id, policy.stop_ids, cache_budget_tokens)
    if not max_prompt_tokens:
        raise ValueError("the continuous engine sizes its slots from the longest prompt: set "
                         "rollout.max_prompt_tokens (> 0)")
    param_bytes = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(policy.params))
    engine = engine_lib.Engine(policy.model_config, max_prompt_tokens=max_prompt_tokens,
                               max_new_tokens=max_new_tokens, budget_tokens=cache_budget_tokens, mesh=mesh,
                               pad_id=policy.tokenizer.pad_id, segment_steps=segment_steps,
                               reserve_bytes=param_bytes // mesh.shape["tensor"])
    return ContinuousGenerator(engine, policy.stop_ids)


def longest_prompt(policy: Policy, prompts: Sequence[str]) -> int:
    """Tokens of the longest encoded prompt (sizes an evaluation's engine slots to its problems)."""
    return int(np.max([len(policy.prompt_format.encode(p)) for p in prompts]))
