"""The policy as the rollout side sees it, and one rollout: problems -> G responses -> verdicts.

Shared by the trainer (RL steps, in-training evaluation) and rlve_jax/evaluate.py.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, Sequence

import jax
import ml_collections
import numpy as np
from flax import nnx
from jax.experimental import multihost_utils
from jax.sharding import Mesh

from rlve_jax import convert, distributed, sampler, sharding, tiny_tokenizer
from rlve_jax import model as model_lib
from rlve_jax.env import Problem, Verdict
from rlve_jax.pool import EnvPool
from rlve_jax.tokenizer import PromptFormat, Tokenizer


@dataclasses.dataclass
class Policy:
    """The model split into (graphdef, params, rest), with its tokenizer, prompt format and meshes.

    `mesh` spans every process's devices (training, parameters sharded fsdp); `sampler_mesh` is this
    process's devices only: each process samples its own prompts with a full copy of the parameters.
    """

    graphdef: Any
    params: Any  # nnx.State of the nnx.Param leaves
    rest: Any  # every other variable (none in the Qwen models, kept for generality)
    tokenizer: Tokenizer
    prompt_format: PromptFormat
    mesh: Mesh
    sampler_mesh: Mesh

    def sampler_model(self) -> nnx.Module:
        """The model with this process's copy of the current parameters placed for the sampler."""
        state = sharding.sampler_state(self.params, self.mesh, self.sampler_mesh)
        return nnx.merge(self.graphdef, jax.block_until_ready(state), self.rest)

    @property
    def stop_ids(self) -> list[int]:
        return list(self.tokenizer.eos_ids)

    def encode_prompt(self, problem: Problem) -> list[int]:
        return self.tokenizer.encode(self.prompt_format.render(problem.prompt))


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
    stats.peak_cache_bytes = max(stats.peak_cache_bytes, out.peak_cache_bytes)
    start = time.perf_counter()
    responses = [out.tokens[i, :out.lengths[i]].tolist() for i in range(len(out.lengths))]
    texts = [policy.tokenizer.decode(r, skip_special_tokens=True) for r in responses]
    g = settings.samples
    verdicts = pool.verify([kept[i // g] for i in range(len(texts))], texts, policy.prompt_format.markers)
    stats.seconds["verify"] += time.perf_counter() - start
    rows = [slice(i * g, (i + 1) * g) for i in range(len(kept))]
    return [Group(problem, prompts[i], responses[rows[i]], texts[rows[i]],
                  [out.logprobs[j, :out.lengths[j]] for j in range(rows[i].start, rows[i].stop)],
                  out.truncated[rows[i]].tolist(), verdicts[rows[i]])
            for i, problem in enumerate(kept)]


# ---------------------------------------------------------------------------
# Building the policy from a config


def load_tokenizer(config: ml_collections.ConfigDict, env_names: Sequence[str],
                   workdir: Path) -> tuple[Tokenizer, PromptFormat]:
    """The tokenizer (model directory, a given directory, or the tiny run's own) and the prompt format."""
    path = config.tokenizer.path or config.model.path
    if path == "tiny":  # process 0 trains it into the (shared) workdir, the others wait and read it
        path = Path(workdir) / "tokenizer"
        if distributed.is_primary():
            tiny_tokenizer.build(env_names, path)
        multihost_utils.sync_global_devices("tiny tokenizer")
    if not path or not (Path(path) / "tokenizer.json").is_file():
        raise FileNotFoundError(f"no tokenizer.json in {str(path)!r}: pass --config.tokenizer.path=DIR (or a "
                                "--config.model.path that holds one, or 'tiny' for the tiny run's tokenizer)")
    tokenizer = Tokenizer.from_dir(path)
    return tokenizer, PromptFormat.make(config.tokenizer.prompt_format, tokenizer)


def answer_completion(prompt_format: PromptFormat, answer: str) -> str:
    """The response text that states `answer` in the format's markers (for the warm start)."""
    start, end = prompt_format.markers
    closing = "</think>\n" if prompt_format.name == "tinyzero" else ""  # the tinyzero prompt opens <think>
    return f"{closing}{start}{answer}{end}"


def check_model_config(config: ml_collections.ConfigDict) -> None:
    """Fail at once, saying what to pass, when no usable model is configured."""
    if not config.model.path and not config.model.preset:
        raise ValueError("no model: pass --config.model.path=DIR (a local HF checkpoint directory with "
                         "config.json and *.safetensors) or --config.model.preset=NAME for a random init")
    if config.model.path and not (Path(config.model.path) / "config.json").is_file():
        raise FileNotFoundError(f"--config.model.path={config.model.path!r} is not a HF checkpoint directory "
                                "(no config.json there); pass the directory that holds config.json and "
                                "the *.safetensors files")


def load_policy(config: ml_collections.ConfigDict, env_names: Sequence[str], workdir: Path) -> Policy:
    """Mesh, tokenizer and model (HF checkpoint on the mesh, or a preset initialised from the seed)."""
    check_model_config(config)
    mesh = sharding.make_mesh(config.mesh.data, config.mesh.fsdp, config.mesh.tensor)
    sampler_mesh = sharding.sampler_mesh(mesh, config.mesh.sampler_tensor or config.mesh.tensor)
    tokenizer, prompt_format = load_tokenizer(config, env_names, workdir)
    overrides = {"remat": config.model.remat, "scan_layers": config.model.scan_layers,
                 "param_dtype": config.model.dtype, "compute_dtype": config.model.dtype}
    if config.model.path:
        model_config = model_lib.ModelConfig.from_hf(config.model.path, **overrides)
        model = convert.load_hf(config.model.path, model_config, mesh=mesh)
    else:
        model_config = model_lib.ModelConfig.preset(config.model.preset, vocab_size=tokenizer.vocab_size,
                                                    **overrides)
        model = sharding.shard_model(model_lib.Transformer(model_config, rngs=nnx.Rngs(config.seed)), mesh)
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    return Policy(graphdef, params, rest, tokenizer, prompt_format, mesh, sampler_mesh)
