"""A training run's policy -> a Hugging Face checkpoint (for vLLM, SGLang, lm-eval, the Hub).

    python -m rlve_jax.export --workdir RUN [--step N] --out DIR [--dtype bfloat16] [--format merged|peft]

Reads checkpoint N (default: the latest) of the run and the model and tokenizer settings the run
recorded in it, and writes DIR/config.json, model*.safetensors (sharded with an index past
--max-shard-gb), the tokenizer files and generation_config.json (the tokenizer's stop ids).
The parameters are restored onto one device, whatever mesh wrote them. A LoRA run (model.lora.rank > 0)
exports its adapters merged into the weights (`merged`, the default), or as a PEFT adapter (`peft`):
DIR/adapter_config.json and adapter_model.safetensors, which `peft.PeftModel.from_pretrained` loads onto
the run's base model (its model.path).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import jax
from flax import nnx

from rlve_jax.defaults import base_config, settings
from rlve_jax.evaluation.evaluate import run_config
from rlve_jax.gym.tokenizer import Tokenizer
from rlve_jax.models import convert, lora as lora_lib
from rlve_jax.models.model import ModelConfig, Transformer
from rlve_jax.models.policy import ModelSettings, model_config_of
from rlve_jax.runtime.checkpoint import Checkpointer


@dataclasses.dataclass(frozen=True)
class RunModel:
    """What a run's checkpoint needs to become an HF checkpoint."""

    step: int
    model: Transformer  # with LoRA: the base model with its adapters
    tokenizer_dir: Path
    base_config: dict[str, Any]  # the source config.json's fields (token ids, ...); {} for a preset
    lora: lora_lib.LoraConfig | None = None
    model_path: str = ""  # the run's model.path ("" for a preset)


def run_model_config(model: ModelSettings, tokenizer: Tokenizer) -> ModelConfig:
    """The architecture and parameter layout the run trained (models/policy.py's model_config_of, as the run built
    it from its model section)."""
    if model.path and not (Path(model.path) / "config.json").is_file():
        raise FileNotFoundError(f"the run's base model {model.path!r} has no config.json here; it gives "
                                "the architecture and token ids: copy it to that path")
    return model_config_of(model, tokenizer.vocab_size)


def load_run(workdir: str | Path, step: int | None = None) -> RunModel:
    """The policy of checkpoint `step` (default: the latest) of a training run, on one device."""
    workdir = Path(workdir)
    checkpointer = Checkpointer(workdir)
    try:
        step = checkpointer.latest_step() if step is None else step
        if step is None or step not in checkpointer.manager.all_steps():
            raise FileNotFoundError(f"no checkpoint {'' if step is None else step} under {workdir}/checkpoints "
                                    f"(steps there: {sorted(checkpointer.manager.all_steps())})")
        trained = checkpointer.restore_meta(step)["config"]
        run = settings(run_config(base_config(), trained, workdir))  # the run's sections over today's defaults
        tokenizer_dir = Path(run.tokenizer.path or run.model.path)  # the tiny run's own, the given one, the model's
        if not (tokenizer_dir / "tokenizer.json").is_file():
            raise FileNotFoundError(f"the run's tokenizer is not at {tokenizer_dir} (no tokenizer.json)")
        config, lora = run_model_config(run.model, Tokenizer.from_dir(tokenizer_dir)), run.model.lora
        if lora is not None:  # the checkpoint holds the adapters: the base comes from where the run read it
            return _load_lora_run(checkpointer, step, trained, config, lora, tokenizer_dir)
        abstract = nnx.eval_shape(lambda: Transformer(config, rngs=nnx.Rngs(0)))
        graphdef, params, rest = nnx.split(abstract, nnx.Param, ...)
        here = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        target = jax.tree.map(lambda v: jax.ShapeDtypeStruct(v.shape, v.dtype, sharding=here), params)
        params = checkpointer.restore_params(step, target)
    finally:
        checkpointer.close()
    return RunModel(step, nnx.merge(graphdef, params, rest), tokenizer_dir, _base_config(trained))


def _base_config(trained: dict) -> dict[str, Any]:
    base_path = Path(trained["model"]["path"]) / "config.json" if trained["model"]["path"] else None
    return json.loads(base_path.read_text()) if base_path else {}


def _load_lora_run(checkpointer: Checkpointer, step: int, trained: dict, config: ModelConfig,
                   lora: lora_lib.LoraConfig, tokenizer_dir: Path) -> RunModel:
    """A LoRA run's policy on one device: its base (model.path's weights, or the preset from the run's seed),
    its adapters from the checkpoint."""
    if trained["model"]["path"]:
        base = convert.load_hf(trained["model"]["path"], config)
    else:
        base = Transformer(config, rngs=nnx.Rngs(trained["seed"]))
    model = lora_lib.add_adapters(base, lora, trained["seed"])
    nnx.update(model, checkpointer.restore_params(step, nnx.state(model, nnx.Param)))
    return RunModel(step, model, tokenizer_dir, _base_config(trained), lora, trained["model"]["path"])


def cast(model: Transformer, dtype: str) -> Transformer:
    """The same model with its parameters stored (and computed) in `dtype`."""
    config = dataclasses.replace(model.config, param_dtype=dtype, compute_dtype=dtype)
    graphdef, _ = nnx.split(nnx.eval_shape(lambda: Transformer(config, rngs=nnx.Rngs(0))))
    return nnx.merge(graphdef, jax.tree.map(lambda x: x.astype(dtype), nnx.state(model)))


def token_ids(tokenizer: Tokenizer) -> dict[str, Any]:
    """config.json / generation_config.json token ids from the tokenizer (every stop id as eos)."""
    eos = list(tokenizer.eos_ids)
    ids: dict[str, Any] = {"eos_token_id": eos[0] if len(eos) == 1 else eos, "pad_token_id": tokenizer.pad_id}
    if tokenizer.special["bos_token"] is not None:
        ids["bos_token_id"] = tokenizer.token_id(tokenizer.special["bos_token"])
    return ids


def export_peft(run: RunModel, out: Path, base_model: str | None) -> None:
    """A LoRA run's adapters as a PEFT adapter directory (adapter_config.json, adapter_model.safetensors)."""
    from safetensors.numpy import save_file

    out.mkdir(parents=True, exist_ok=True)
    save_file(lora_lib.peft_tensors(run.model), str(out / "adapter_model.safetensors"), metadata={"format": "pt"})
    (out / "adapter_config.json").write_text(json.dumps(lora_lib.peft_config(run.lora, base_model), indent=2))


def export(workdir: str | Path, out: str | Path, step: int | None = None, dtype: str | None = None,
           max_shard_bytes: int = 4 << 30, format: str = "merged") -> Path:
    """Write the run's policy as an HF checkpoint directory (format "merged"), or a LoRA run's adapters as a
    PEFT adapter directory ("peft"); returns it."""
    run = load_run(workdir, step)
    if format == "peft":
        if run.lora is None or dtype:
            raise ValueError(f"--format peft needs a LoRA run (model.lora.rank > 0) and no --dtype; {workdir}: "
                             f"rank {0 if run.lora is None else run.lora.rank}, dtype {dtype}")
        export_peft(run, Path(out), run.model_path or None)
        (Path(out) / "rlve_export.json").write_text(json.dumps(
            {"workdir": str(Path(workdir).absolute()), "step": run.step, "format": "peft"}, indent=2))
        return Path(out)
    model = lora_lib.merged(run.model, run.lora) if run.lora else run.model
    model = cast(model, dtype) if dtype else model
    tokenizer = Tokenizer.from_dir(run.tokenizer_dir)
    ids = token_ids(tokenizer)
    out = Path(out)
    convert.save_hf(model, str(out), tokenizer_dir=str(run.tokenizer_dir), base_config={**ids, **run.base_config},
                    max_shard_bytes=max_shard_bytes)
    tokenizer_config = out / "tokenizer_config.json"
    settings = json.loads(tokenizer_config.read_text()) if tokenizer_config.exists() else {}
    if "tokenizer_class" not in settings:  # e.g. the tiny run's tokenizer: a plain tokenizer.json
        settings["tokenizer_class"] = "PreTrainedTokenizerFast"
        tokenizer_config.write_text(json.dumps(settings, indent=1, ensure_ascii=False))
    generation = out / "generation_config.json"
    if not generation.exists():  # the base model's is copied with the tokenizer files when it has one
        generation.write_text(json.dumps({**ids, "eos_token_id": list(tokenizer.eos_ids)}, indent=2))
    (out / "rlve_export.json").write_text(json.dumps(
        {"workdir": str(Path(workdir).absolute()), "step": run.step, "dtype": model.config.param_dtype}, indent=2))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rlve_jax.export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True, help="the training run's directory (holds checkpoints/)")
    parser.add_argument("--step", type=int, help="checkpoint step (default: the latest)")
    parser.add_argument("--out", required=True, help="directory to write the HF checkpoint into")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                        help="parameter dtype of the export (default: the run's)")
    parser.add_argument("--max-shard-gb", type=float, default=4.0, help="safetensors shard size")
    parser.add_argument("--format", choices=("merged", "peft"), default="merged",
                        help="merged: HF weights (a LoRA run's adapters merged in); peft: a LoRA run's adapter only")
    args = parser.parse_args(argv)
    try:
        out = export(args.workdir, args.out, args.step, args.dtype, int(args.max_shard_gb * 2**30), args.format)
    except (FileNotFoundError, ValueError) as error:
        parser.exit(2, f"error: {error}\n")
    meta = json.loads((out / "rlve_export.json").read_text())
    files = sorted(os.listdir(out))
    print(f"wrote step {meta['step']} of {args.workdir} ({meta.get('dtype', meta.get('format'))}) to {out}: "
          f"{', '.join(files)}")


if __name__ == "__main__":
    main()
