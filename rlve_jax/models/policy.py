"""The policy: model parameters split for training and sampling, its tokenizer, prompt format and
meshes; assembled from the model, tokenizer and mesh sections (a local HF checkpoint or a preset initialised
from the seed) in one place, `load_policy`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, Sequence

import jax
from flax import nnx
from jax.experimental import multihost_utils
from jax.sharding import Mesh

from rlve_jax.models import convert, decode_attention, lora as lora_lib, tiny_tokenizer
from rlve_jax.runtime import distributed, sharding, trainable
from rlve_jax.models import model as model_lib
from rlve_jax.gym.prompts import PromptFormat
from rlve_jax.gym.tokenizer import Tokenizer


@dataclasses.dataclass(frozen=True)
class ModelSettings:
    """The model section."""

    path: str  # a local HF checkpoint directory (config.json + *.safetensors); "": the preset, from the seed
    preset: str
    dtype: str  # parameters and compute
    remat: bool
    scan_layers: bool
    attention_impl: str  # "auto": the backend's at trace time
    decode_attention: str  # "auto": the backend's default
    lora: lora_lib.LoraConfig | None  # model.lora; None: rank 0, every weight trains


@dataclasses.dataclass(frozen=True)
class TokenizerSettings:
    """The tokenizer section."""

    path: str  # "": the model directory; "tiny": built for the run from the environments' prompts
    tiny_vocab_size: int
    tiny_word_split: bool
    prompt_format: str  # "chat" | "tinyzero"
    boxed_instruction: bool  # chat: the boxed-answer sentence after the problem (False: the original's prompt)


@dataclasses.dataclass
class Policy:
    """The model split into (graphdef, params, rest), with its tokenizer, prompt format and meshes.

    `mesh` spans every process's devices (training, parameters sharded fsdp); `sampler_mesh` is this
    process's devices only: each process samples its own prompts with a full copy of the parameters (with
    mesh.rollout_devices > 0: the training mesh and the rollout sub-mesh are disjoint).
    `params` are the weights it was built with (loaded or initialised): evaluation samples with them; a training
    run starts from them, and from then on its Learner's state holds the parameters (its updates consume these).
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
    # LoRA on a sampler mesh of its own: the frozen base weights sent there by the first sampler_model
    _sampler_base: Any = dataclasses.field(default=None, init=False, repr=False, compare=False)

    def sampler_model(self, params: Any = None) -> nnx.Module:
        """The model with this process's copy of `params` (default: the policy's own) placed for the sampler. With
        LoRA the engine runs the plain model with the adapters merged into the weights (at full-fine-tuning speed,
        one merge per collection instead of two extra matmuls per projection): merged on the training mesh and
        placed like the rest where the sampler shares its devices; on a sampler mesh of its own the adapters alone
        cross to it (the frozen base crossed once, kept there) and are merged there."""
        params, graphdef = self.params if params is None else params, self.graphdef
        if self.lora is None:
            state = sharding.sampler_state(params, self.mesh, self.sampler_mesh)
        elif set(self.sampler_mesh.devices.flat).isdisjoint(self.mesh.devices.flat):
            adapters, base = trainable.split_trainable(params)
            if self._sampler_base is None:
                self._sampler_base = sharding.sampler_state(base, self.mesh, self.sampler_mesh)
            sent = sharding.sampler_state(adapters, self.mesh, self.sampler_mesh)
            state = self._merge(trainable.merge_trainable(sent, self._sampler_base))
        else:
            state = sharding.sampler_state(self._merge(params), self.mesh, self.sampler_mesh)
        if self.lora is not None:
            graphdef = lora_lib.plain_graphdef(self.model_config)
        return nnx.merge(graphdef, jax.block_until_ready(state), self.rest)

    def _merge(self, params: Any) -> Any:
        """W + scale * A @ B in each adapted projection, adapters dropped (the plain model's parameters)."""
        return lora_lib.merge_params(params, self.lora.scale, self.model_config.scan_layers)

    @property
    def stop_ids(self) -> list[int]:
        return list(self.tokenizer.eos_ids)


def load_tokenizer(settings: TokenizerSettings, *, model_path: str, env_names: Sequence[str],
                   workdir: Path) -> tuple[Tokenizer, PromptFormat]:
    """The tokenizer (the section's path, the model directory, or the tiny run's own built from the
    environments' prompts) and the prompt format."""
    path = settings.path or model_path
    if path == "tiny":  # process 0 trains it into the (shared) workdir, the others wait and read it
        path = Path(workdir) / "tokenizer"
        if distributed.is_primary():
            tiny_tokenizer.build(env_names, path, settings.tiny_vocab_size, settings.tiny_word_split)
        multihost_utils.sync_global_devices("tiny tokenizer")
    if not path or not (Path(path) / "tokenizer.json").is_file():
        raise FileNotFoundError(f"no tokenizer.json in {str(path)!r}: pass --config.tokenizer.path=DIR (or a "
                                "--config.model.path that holds one, or 'tiny' for the tiny run's tokenizer)")
    loaded = Tokenizer.from_dir(path)
    instruction = "default" if settings.boxed_instruction else None  # None: the original's exact prompt
    return loaded, PromptFormat.make(settings.prompt_format, loaded, instruction)


def check_model_settings(model: ModelSettings) -> None:
    """Fail at once, saying what to pass, when no usable model is configured."""
    if not model.path and not model.preset:
        raise ValueError("no model: pass --config.model.path=DIR (a local HF checkpoint directory with "
                         "config.json and *.safetensors) or --config.model.preset=NAME for a random init")
    if model.path and not (Path(model.path) / "config.json").is_file():
        raise FileNotFoundError(f"--config.model.path={model.path!r} is not a HF checkpoint directory "
                                "(no config.json there); pass the directory that holds config.json and "
                                "the *.safetensors files")


def model_config_of(model: ModelSettings, vocab_size: int | None) -> model_lib.ModelConfig:
    """The model's shape and numerics, without its weights: the checkpoint's config.json, or the preset sized to
    the tokenizer's vocabulary (None: the preset's own, for a plan of a config that names no tokenizer). The
    builder, the planner and evaluation all take the shape from here, and the memory plan needs only it."""
    overrides = {"remat": model.remat, "scan_layers": model.scan_layers, "param_dtype": model.dtype,
                 "compute_dtype": model.dtype,
                 "attention_impl": model.attention_impl,  # "auto": the backend's at trace time (plan: the compiled for)
                 "decode_attention": None if model.decode_attention == "auto" else model.decode_attention}
    if model.path:
        cfg = model_lib.ModelConfig.from_hf(model.path, **overrides)
    else:
        cfg = model_lib.ModelConfig.preset(model.preset, **overrides,
                                           **({} if vocab_size is None else {"vocab_size": vocab_size}))
    if cfg.decode_attention == "pallas_tpu" and not decode_attention.tpu_kernel_fits(cfg.head_dim):
        # fails here, at start-up, not at the first decode step's trace
        raise ValueError(f"bad config: model.decode_attention='pallas_tpu' needs head_dim a multiple of "
                         f"{decode_attention.TPU_LANES}, and this model's is {cfg.head_dim} "
                         "(use 'auto' or 'blockwise')")
    return cfg


def policy_shape(model: ModelSettings, tokenizer: TokenizerSettings, *, env_names: Sequence[str],
                 workdir: Path) -> tuple[Tokenizer, PromptFormat, model_lib.ModelConfig]:
    """The tokenizer, the prompt format and the model's shape: everything of the policy but its weights."""
    check_model_settings(model)
    loaded, prompt_format = load_tokenizer(tokenizer, model_path=model.path, env_names=env_names, workdir=workdir)
    return loaded, prompt_format, model_config_of(model, loaded.vocab_size)


def load_policy(model: ModelSettings, tokenizer: TokenizerSettings, mesh: sharding.MeshSettings, *, seed: int,
                env_names: Sequence[str], workdir: Path,
                check: Callable[[model_lib.ModelConfig, PromptFormat], object] | None = None) -> Policy:
    """The one policy assembly (the builder, evaluation, export's tests): the shape, `check(shape, prompt format)`
    before any weight is read (the memory plan: a config that cannot fit fails in seconds), the meshes, then the
    weights: the HF checkpoint at model.path loaded onto the mesh, or the preset initialised from the seed; LoRA
    adapters on it when model.lora has a rank."""
    loaded, prompt_format, model_config = policy_shape(model, tokenizer, env_names=env_names, workdir=workdir)
    if check is not None:
        check(model_config, prompt_format)
    train_mesh, sampler_mesh = sharding.meshes(mesh)
    if model.path:
        weights = convert.load_hf(model.path, model_config, mesh=train_mesh)
    else:
        weights = sharding.shard_model(model_lib.Transformer(model_config, rngs=nnx.Rngs(seed)), train_mesh)
    if model.lora is not None:
        weights = lora_lib.add_adapters(weights, model.lora, seed)
    graphdef, params, rest = nnx.split(weights, nnx.Param, ...)
    return Policy(graphdef, params, rest, loaded, prompt_format, train_mesh, sampler_mesh, model_config, model.lora)
