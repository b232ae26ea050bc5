"""Sampling with the policy: prompt tokens -> G responses each, through the configured Generator.

Training's rollouts (rl/rollout.py) and the evaluations (held-out, benchmarks, the code suite) sample through
`sample_responses`.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import jax
from flax import nnx

from rlve_jax.generation.generator import Generator, SamplingSettings
from rlve_jax.generation.sampler import SampleOutput
from rlve_jax.gym.tokenizer import Tokenizer


class Responses(NamedTuple):
    """A call's responses, prompt-major (G rows per prompt)."""

    tokens: list[list[int]]  # each row's response tokens (up to its stop token)
    texts: list[str]  # decoded, special tokens skipped
    output: SampleOutput  # the generator's arrays (logprobs, truncation, the cache's peak)


def sample_responses(generator: Generator, model: nnx.Module, tokenizer: Tokenizer, prompts: Sequence[Sequence[int]],
                     settings: SamplingSettings, key: jax.Array, prompt_ids: Sequence[int]) -> Responses:
    """settings.samples responses to each prompt with `model` (policy.sampler_model(params)); prompt_ids name the
    prompts in the sampling keys, so a prompt's responses do not depend on the others in the call."""
    out = generator.generate(model, prompts, settings, rng=key, prompt_ids=prompt_ids)
    tokens = [out.tokens[i, :out.lengths[i]].tolist() for i in range(len(out.lengths))]
    return Responses(tokens, [tokenizer.decode(r, skip_special_tokens=True) for r in tokens], out)
