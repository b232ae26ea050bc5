"""HF safetensors <-> Transformer parameters, through one declarative name table.

Loading streams one tensor at a time from (single or sharded) safetensors, reshapes it
to our layout, casts it and puts it straight onto its NamedSharding. Export writes the
tensors back in HF layout, shard by shard, with config.json and the tokenizer files.

    python -m rlve_jax.models.convert --hf_dir DIR --out DIR            # HF -> orbax params + config.json
    python -m rlve_jax.models.convert --params DIR --out DIR --to_hf    # orbax params -> HF
    python -m rlve_jax.models.convert --hf_dir DIR --out DIR --to_hf    # HF -> ours -> HF (round trip)
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import re
import shutil
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
from safetensors import safe_open
from safetensors.numpy import save_file

from rlve_jax.runtime import sharding
from rlve_jax.models.model import ModelConfig, Transformer

# How an HF tensor maps onto ours: (to ours given our shape, back to HF).
# HF Linear weights are [out, in]; ours are [in..., out...] for einsum.
_KINDS: dict[str, tuple[Callable, Callable]] = {
    "same": (lambda a, shape: a.reshape(shape), lambda a: a),
    "flat": (lambda a, shape: a.reshape(shape), lambda a: a.reshape(-1)),  # bias [N*H] <-> [N, H]
    "in1": (lambda a, shape: a.T.reshape(shape), lambda a: a.reshape(a.shape[0], -1).T),  # [D, N, H], [D, F]
    "in2": (lambda a, shape: a.T.reshape(shape), lambda a: a.reshape(-1, a.shape[-1]).T),  # o_proj [N, H, D]
}

# HF name -> our parameter path -> kind. "{i}" is the layer index.
KEY_TABLE: tuple[tuple[str, str, str], ...] = (
    ("model.embed_tokens.weight", "embed", "same"),
    ("model.layers.{i}.input_layernorm.weight", "layers/{i}/input_norm/scale", "same"),
    ("model.layers.{i}.self_attn.q_proj.weight", "layers/{i}/attn/q_proj", "in1"),
    ("model.layers.{i}.self_attn.k_proj.weight", "layers/{i}/attn/k_proj", "in1"),
    ("model.layers.{i}.self_attn.v_proj.weight", "layers/{i}/attn/v_proj", "in1"),
    ("model.layers.{i}.self_attn.o_proj.weight", "layers/{i}/attn/o_proj", "in2"),
    ("model.layers.{i}.self_attn.q_proj.bias", "layers/{i}/attn/q_bias", "flat"),
    ("model.layers.{i}.self_attn.k_proj.bias", "layers/{i}/attn/k_bias", "flat"),
    ("model.layers.{i}.self_attn.v_proj.bias", "layers/{i}/attn/v_bias", "flat"),
    ("model.layers.{i}.self_attn.o_proj.bias", "layers/{i}/attn/o_bias", "same"),
    ("model.layers.{i}.self_attn.q_norm.weight", "layers/{i}/attn/q_norm/scale", "same"),
    ("model.layers.{i}.self_attn.k_norm.weight", "layers/{i}/attn/k_norm/scale", "same"),
    ("model.layers.{i}.post_attention_layernorm.weight", "layers/{i}/post_attn_norm/scale", "same"),
    ("model.layers.{i}.mlp.gate_proj.weight", "layers/{i}/mlp/gate_proj", "in1"),
    ("model.layers.{i}.mlp.up_proj.weight", "layers/{i}/mlp/up_proj", "in1"),
    ("model.layers.{i}.mlp.down_proj.weight", "layers/{i}/mlp/down_proj", "in1"),
    ("model.norm.weight", "final_norm/scale", "same"),
    ("lm_head.weight", "lm_head", "in1"),
)
_HF_PATTERNS = [(re.compile(re.escape(hf).replace(r"\{i\}", r"(\d+)") + "$"), ours, kind)
                for hf, ours, kind in KEY_TABLE]
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "special_tokens_map.json",
                   "vocab.json", "merges.txt", "chat_template.jinja")


def _our_key(hf_name: str) -> tuple[str, int | None, str] | None:
    """(our path with {i}, layer index, kind) of an HF tensor name, or None."""
    for pattern, ours, kind in _HF_PATTERNS:
        if m := pattern.match(hf_name):
            return ours, int(m.group(1)) if m.groups() else None, kind
    return None


def _flat_params(model: nnx.Module) -> dict[str, nnx.Variable]:
    return {sharding.path_str(path): var for path, var in nnx.to_flat_state(nnx.state(model))}


def _safetensors_files(hf_dir: str) -> list[str]:
    files = sorted(glob.glob(os.path.join(hf_dir, "*.safetensors")))
    if not files:
        raise FileNotFoundError(f"no *.safetensors in {hf_dir}")
    return files


def load_hf(hf_dir: str, config: ModelConfig | None = None, mesh: Mesh | None = None,
            dtype: str | None = None, fsdp: bool = True) -> Transformer:
    """A Transformer holding an HF checkpoint, each tensor placed on its sharding as it is read."""
    config = config or ModelConfig.from_hf(hf_dir)
    if dtype is not None:
        config = dataclasses.replace(config, param_dtype=dtype)
    abstract = nnx.eval_shape(lambda: Transformer(config, rngs=nnx.Rngs(0)))
    targets = _flat_params(abstract)  # our path -> Variable holding a ShapeDtypeStruct
    stacked = config.scan_layers

    def placement(path: str, shape: tuple[int, ...]):
        if mesh is None:
            return SingleDeviceSharding(jax.devices()[0])
        return NamedSharding(mesh, sharding.param_spec(path, shape, mesh, fsdp))

    loaded: dict[str, jax.Array] = {}
    layer_parts: dict[str, dict[int, jax.Array]] = {}
    unexpected, wrong_shape = [], []
    for file in _safetensors_files(hf_dir):
        with safe_open(file, framework="np") as f:
            for name in f.keys():
                match = _our_key(name)
                if match is None or (name == "lm_head.weight" and config.tie_word_embeddings):
                    if match is None:
                        unexpected.append(name)
                    continue
                ours, layer, kind = match
                path = ours.replace("{i}/", "") if stacked else ours.replace("{i}", str(layer))
                if path not in targets or (layer is not None and layer >= config.num_layers):
                    unexpected.append(name)
                    continue
                shape = tuple(targets[path].shape)[1:] if stacked and layer is not None else tuple(targets[path].shape)
                tensor = f.get_tensor(name)
                if tensor.size != int(np.prod(shape)):
                    wrong_shape.append(f"{name}: {tensor.shape} vs ours {shape}")
                    continue
                value = _KINDS[kind][0](tensor, shape).astype(config.param_dtype)
                if stacked and layer is not None:
                    layer_parts.setdefault(path, {})[layer] = jax.device_put(value, placement(path, shape))
                else:
                    loaded[path] = jax.device_put(value, placement(path, shape))
                del tensor, value
    for path, parts in layer_parts.items():
        if len(parts) == config.num_layers:
            out = placement(path, tuple(targets[path].shape))
            loaded[path] = jax.jit(lambda *xs: jnp.stack(xs), out_shardings=out)(*(parts[i] for i in sorted(parts)))
        else:
            missing_layers = sorted(set(range(config.num_layers)) - set(parts))
            wrong_shape.append(f"{path}: layers {missing_layers} missing")
    missing = sorted(set(targets) - set(loaded))
    if missing or unexpected or wrong_shape:
        raise ValueError(f"checkpoint {hf_dir} does not match {config.arch} config:\n"
                         f"  missing: {missing}\n  unexpected: {sorted(unexpected)}\n  mismatched: {wrong_shape}")
    for path, var in targets.items():
        var.set_value(loaded[path])
    return abstract


def hf_tensors(model: Transformer):
    """Yield (HF name, numpy array in HF layout) for every parameter, one at a time."""
    cfg = model.config
    params = _flat_params(model)
    for hf, ours, kind in KEY_TABLE:
        layers = range(cfg.num_layers) if "{i}" in ours else [None]
        for layer in layers:
            if cfg.scan_layers or layer is None:
                path = ours.replace("{i}/", "")
            else:
                path = ours.replace("{i}", str(layer))
            if path not in params:
                continue
            value = params[path][...]
            if cfg.scan_layers and layer is not None:
                value = value[layer]
            name = hf.replace("{i}", str(layer))
            yield name, _KINDS[kind][1](np.asarray(jax.device_get(value)))


def save_hf(model: Transformer, out_dir: str, tokenizer_dir: str | None = None,
            base_config: dict | None = None, max_shard_bytes: int = 4 << 30) -> None:
    """Write HF safetensors (sharded with an index past max_shard_bytes), config.json and tokenizer files.

    base_config (e.g. the source config.json) keeps fields we do not model, like token ids.
    """
    os.makedirs(out_dir, exist_ok=True)
    shards, current, size = [], {}, 0

    def flush():
        nonlocal current, size
        if current:
            name = f"model-{len(shards) + 1:05d}.safetensors"
            save_file(current, os.path.join(out_dir, name), metadata={"format": "pt"})
            shards.append((name, list(current)))
            current, size = {}, 0

    for name, array in hf_tensors(model):
        if size and size + array.nbytes > max_shard_bytes:
            flush()
        current[name] = np.ascontiguousarray(array)
        size += array.nbytes
    flush()
    if len(shards) == 1:
        os.replace(os.path.join(out_dir, shards[0][0]), os.path.join(out_dir, "model.safetensors"))
    else:
        total = sum(os.path.getsize(os.path.join(out_dir, n)) for n, _ in shards)
        index = {"metadata": {"total_size": total}, "weight_map": {k: n for n, keys in shards for k in keys}}
        with open(os.path.join(out_dir, "model.safetensors.index.json"), "w") as f:
            json.dump(index, f, indent=2)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump({**(base_config or {}), **model.config.to_hf()}, f, indent=2)
    for name in TOKENIZER_FILES if tokenizer_dir else ():
        if os.path.exists(src := os.path.join(tokenizer_dir, name)):
            shutil.copy(src, os.path.join(out_dir, name))


def save_params(model: Transformer, out_dir: str) -> None:
    """Our native format: orbax parameters plus the ModelConfig as JSON."""
    import orbax.checkpoint as ocp

    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "model_config.json"), "w") as f:
        json.dump(dataclasses.asdict(model.config), f, indent=2)
    with ocp.StandardCheckpointer() as ckpt:
        ckpt.save(os.path.join(out_dir, "params"), nnx.to_pure_dict(nnx.state(model)))


def load_params(params_dir: str, mesh: Mesh | None = None, fsdp: bool = True) -> Transformer:
    """Inverse of save_params, restoring each array onto its sharding."""
    import orbax.checkpoint as ocp

    params_dir = os.path.abspath(params_dir)
    with open(os.path.join(params_dir, "model_config.json")) as f:
        config = ModelConfig(**json.load(f))
    abstract = nnx.eval_shape(lambda: Transformer(config, rngs=nnx.Rngs(0)))
    state = nnx.state(abstract)
    if mesh is not None:
        shardings = sharding.state_shardings(state, mesh, fsdp)
        target = jax.tree.map(lambda v, s: jax.ShapeDtypeStruct(v.shape, v.dtype, sharding=s), state, shardings)
    else:
        target = jax.tree.map(lambda v: jax.ShapeDtypeStruct(v.shape, v.dtype), state)
    with ocp.StandardCheckpointer() as ckpt:
        restored = ckpt.restore(os.path.join(params_dir, "params"), nnx.to_pure_dict(target))
    nnx.replace_by_pure_dict(state, restored)
    nnx.update(abstract, state)
    return abstract


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--hf_dir", help="HF checkpoint directory to read")
    source.add_argument("--params", help="directory written by this tool without --to_hf")
    parser.add_argument("--out", required=True)
    parser.add_argument("--to_hf", action="store_true", help="write HF safetensors instead of orbax params")
    parser.add_argument("--dtype", help="parameter dtype (default: the checkpoint's)")
    args = parser.parse_args(argv)
    if args.hf_dir:
        model = load_hf(args.hf_dir, dtype=args.dtype)
        base = json.load(open(os.path.join(args.hf_dir, "config.json")))
    else:
        model, base = load_params(args.params), None
        if args.dtype:
            raise SystemExit("--dtype applies to --hf_dir only")
    if args.to_hf:
        save_hf(model, args.out, tokenizer_dir=args.hf_dir, base_config=base)
    else:
        save_params(model, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
