"""One generation interface for training and evaluation: the continuous engine or the static sampler.

Both draw the same tokens from the same keys (row key = fold_in(rng, prompt_id * G + g)); they differ
in memory and speed. `make_generator` picks the configured one (`rollout.engine`) for a policy; the
collector, the in-training evaluation, `evaluate` and `code_eval` all sample through it.
"""

from __future__ import annotations

from typing import Protocol, Sequence

import jax
import numpy as np
from jax.sharding import Mesh

from rlve_jax.generation import engine as engine_lib
from rlve_jax.generation import sampler
from rlve_jax.generation.sampler import SampleOutput
from rlve_jax.models.model import Transformer
from rlve_jax.models.policy import Policy

ENGINES = ("continuous", "static")


class Generator(Protocol):
    """G continuations of each prompt: sampler.generate's contract."""

    def generate(self, model: Transformer, prompts: Sequence[Sequence[int]], *, n_per_prompt: int,
                 max_new_tokens: int, temperature: float, top_p: float, top_k: int, stop_ids: Sequence[int],
                 rng: jax.Array, prompt_ids: Sequence[int] | None = None) -> SampleOutput: ...


class StaticGenerator:
    """sampler.generate in static chunks of prompts (each chunk decodes until its longest row ends)."""

    def __init__(self, mesh: Mesh, pad_id: int, cache_budget_tokens: int | None):
        self.mesh, self.pad_id, self.cache_budget_tokens = mesh, pad_id, cache_budget_tokens

    def generate(self, model: Transformer, prompts: Sequence[Sequence[int]], **kwargs) -> SampleOutput:
        return sampler.generate(model, prompts, mesh=self.mesh, pad_id=self.pad_id,
                                cache_budget_tokens=self.cache_budget_tokens, **kwargs)


def make_generator(kind: str, policy: Policy, *, max_prompt_tokens: int | None, max_new_tokens: int,
                   cache_budget_tokens: int | None, segment_steps: int = 16) -> Generator:
    """The configured generator on the policy's sampler mesh. The engine sizes its slots for prompts of up to
    max_prompt_tokens and responses of max_new_tokens; its default KV budget (cache_budget_tokens None) is
    what the sampler's devices have free now, less the sampler's own copy of the parameters."""
    if kind not in ENGINES:
        raise ValueError(f"rollout.engine must be one of {ENGINES}, got {kind!r}")
    mesh = policy.sampler_mesh
    if kind == "static":
        return StaticGenerator(mesh, policy.tokenizer.pad_id, cache_budget_tokens)
    if not max_prompt_tokens:
        raise ValueError("the continuous engine sizes its slots from the longest prompt: set "
                         "rollout.max_prompt_tokens (> 0)")
    param_bytes = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(policy.params))
    return engine_lib.Engine(policy.model_config, max_prompt_tokens=max_prompt_tokens, max_new_tokens=max_new_tokens,
                             budget_tokens=cache_budget_tokens, mesh=mesh, pad_id=policy.tokenizer.pad_id,
                             segment_steps=segment_steps, reserve_bytes=param_bytes // mesh.shape["tensor"])


def longest_prompt(policy: Policy, prompts: Sequence[str]) -> int:
    """Tokens of the longest rendered prompt (sizes an evaluation's engine slots to its problems)."""
    return int(np.max([len(policy.tokenizer.encode(policy.prompt_format.render(p))) for p in prompts]))
