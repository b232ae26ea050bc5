"""The policy: model parameters split for training and sampling, its tokenizer, prompt format and
meshes; built from a config (a local HF checkpoint or a preset initialised from the seed).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Sequence

import jax
import ml_collections
from flax import nnx
from jax.experimental import multihost_utils
from jax.sharding import Mesh

from rlve_jax.defaults import ConfigError
from rlve_jax.models import convert, decode_attention, lora as lora_lib, tiny_tokenizer
from rlve_jax.runtime import distributed, sharding
from rlve_jax.models import model as model_lib
from rlve_jax.gym.env import Problem
from rlve_jax.gym.prompts import PromptFormat
from rlve_jax.gym.tokenizer import Tokenizer


@dataclasses.dataclass
class Policy:
    """The model split into (graphdef, params, rest), with its tokenizer, prompt format and meshes.

    `mesh` spans every process's devices (training, parameters sharded fsdp); `sampler_mesh` is this
    process's devices only: each process samples its own prompts with a full copy of the parameters (with
    mesh.rollout_devices > 0: the training mesh and the rollout sub-mesh are disjoint).
    With LoRA (`lora`), params holds the frozen base weights and the adapters (nnx.LoRAParam) that train.
    """

    graphdef: Any
    params: Any  # nnx.State of the nnx.Param leaves
    rest: Any  # every other variable (none in the Qwen models, kept for generality)
    tokenizer: Tokenizer
    prompt_format: PromptFormat
    mesh: Mesh
    sampler_mesh: Mesh
    model_config: model_lib.ModelConfig  # the shape and numerics, without merging the model to read them
    lora: lora_lib.LoraConfig | None = None  # model.lora (None: rank 0, every weight trains)

    def sampler_model(self) -> nnx.Module:
        """The model with this process's copy of the current parameters placed for the sampler. With LoRA, the
        adapters merged into the weights first (on the training mesh, sharded): the engine runs the plain model
        at full-fine-tuning speed, one merge per collection instead of two extra matmuls per projection."""
        params, graphdef = self.params, self.graphdef
        if self.lora is not None:
            params = lora_lib.merge_params(params, self.lora.scale, self.model_config.scan_layers)
            graphdef = lora_lib.plain_graphdef(self.model_config)
        state = sharding.sampler_state(params, self.mesh, self.sampler_mesh)
        return nnx.merge(graphdef, jax.block_until_ready(state), self.rest)

    @property
    def stop_ids(self) -> list[int]:
        return list(self.tokenizer.eos_ids)

    def encode_prompt(self, problem: Problem) -> list[int]:
        return self.tokenizer.encode(self.prompt_format.render(problem.prompt))


def load_tokenizer(tokenizer: ml_collections.ConfigDict, *, model_path: str, env_names: Sequence[str],
                   workdir: Path) -> tuple[Tokenizer, PromptFormat]:
    """The tokenizer (the tokenizer section's path, the model directory, or the tiny run's own built from the
    environments' prompts) and the prompt format."""
    path = tokenizer.path or model_path
    if path == "tiny":  # process 0 trains it into the (shared) workdir, the others wait and read it
        path = Path(workdir) / "tokenizer"
        if distributed.is_primary():
            tiny_tokenizer.build(env_names, path, tokenizer.tiny_vocab_size, tokenizer.tiny_word_split)
        multihost_utils.sync_global_devices("tiny tokenizer")
    if not path or not (Path(path) / "tokenizer.json").is_file():
        raise FileNotFoundError(f"no tokenizer.json in {str(path)!r}: pass --config.tokenizer.path=DIR (or a "
                                "--config.model.path that holds one, or 'tiny' for the tiny run's tokenizer)")
    loaded = Tokenizer.from_dir(path)
    instruction = "default" if tokenizer.boxed_instruction else None  # None: the original's exact prompt
    return loaded, PromptFormat.make(tokenizer.prompt_format, loaded, instruction)


def check_model_config(model: ml_collections.ConfigDict) -> None:
    """Fail at once, saying what to pass, when no usable model is configured."""
    if not model.path and not model.preset:
        raise ValueError("no model: pass --config.model.path=DIR (a local HF checkpoint directory with "
                         "config.json and *.safetensors) or --config.model.preset=NAME for a random init")
    if model.path and not (Path(model.path) / "config.json").is_file():
        raise FileNotFoundError(f"--config.model.path={model.path!r} is not a HF checkpoint directory "
                                "(no config.json there); pass the directory that holds config.json and "
                                "the *.safetensors files")


def model_overrides(model: ml_collections.ConfigDict) -> dict[str, Any]:
    """The ModelConfig fields the model section sets (numerics, layer loop, attention)."""
    return {"remat": model.remat, "scan_layers": model.scan_layers, "param_dtype": model.dtype,
            "compute_dtype": model.dtype,
            "attention_impl": model.attention_impl,  # "auto": the backend's at trace time (plan: the one compiled for)
            "decode_attention": None if model.decode_attention == "auto" else model.decode_attention}


def model_config_of(model: ml_collections.ConfigDict, tokenizer: Tokenizer) -> model_lib.ModelConfig:
    """The model's shape and numerics, without its weights: the checkpoint's config.json, or a preset sized to
    the tokenizer. The memory plan needs only this, so it runs before any weight is read."""
    if model.path:
        return check_decode_attention(model_lib.ModelConfig.from_hf(model.path, **model_overrides(model)))
    return check_decode_attention(model_lib.ModelConfig.preset(model.preset, vocab_size=tokenizer.vocab_size,
                                                               **model_overrides(model)))


def check_decode_attention(cfg: model_lib.ModelConfig) -> model_lib.ModelConfig:
    """cfg, unless model.decode_attention names the TPU kernel and the model's head_dim does not fit it: that fails
    here, at start-up, not at the first decode step's trace."""
    if cfg.decode_attention == "pallas_tpu" and not decode_attention.tpu_kernel_fits(cfg.head_dim):
        raise ConfigError(f"bad config: model.decode_attention='pallas_tpu' needs head_dim a multiple of "
                          f"{decode_attention.TPU_LANES}, and this model's is {cfg.head_dim} "
                          "(use 'auto' or 'blockwise')")
    return cfg


def build_policy(model_config: model_lib.ModelConfig, tokenizer: Tokenizer, prompt_format: PromptFormat, *,
                 mesh: ml_collections.ConfigDict, model_path: str, seed: int,
                 lora: ml_collections.ConfigDict | None = None) -> Policy:
    """Meshes and weights: the HF checkpoint at model_path loaded onto the mesh, or the model initialised from
    the seed; LoRA adapters on it when the model.lora section (`lora`) has a rank."""
    train_mesh, sampler_mesh = sharding.make_meshes(mesh.data, mesh.fsdp, mesh.tensor,
                                                    mesh.sampler_tensor or mesh.tensor, mesh.rollout_devices)
    if model_path:
        model = convert.load_hf(model_path, model_config, mesh=train_mesh)
    else:
        model = sharding.shard_model(model_lib.Transformer(model_config, rngs=nnx.Rngs(seed)), train_mesh)
    adapters = lora_lib.LoraConfig.of(lora) if lora is not None else None
    if adapters is not None:
        model = lora_lib.add_adapters(model, adapters, seed)
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    return Policy(graphdef, params, rest, tokenizer, prompt_format, train_mesh, sampler_mesh, model_config, adapters)


def load_policy(config: ml_collections.ConfigDict, env_names: Sequence[str], workdir: Path) -> Policy:
    """Tokenizer, model config and weights in one call (evaluation, export, tests)."""
    check_model_config(config.model)
    tokenizer, prompt_format = load_tokenizer(config.tokenizer, model_path=config.model.path, env_names=env_names,
                                              workdir=workdir)
    return build_policy(model_config_of(config.model, tokenizer), tokenizer, prompt_format, mesh=config.mesh,
                        model_path=config.model.path, seed=config.seed, lora=config.model.get("lora"))
