"""LoRA against full fine-tuning on the tiny config: trainable parameters, optimizer state, step time; then
the LoRA run's PEFT export loaded by peft (and its merged export by transformers) against our logits.

    python experiments/bench_lora.py [--steps 6] [--rank 8]

configs/tiny.py's warm start runs once (steps=0) and is exported as an HF checkpoint: the base both RL runs start
from (model.path; LoRA freezes it, as one would a released model), so that groups' rewards differ and the
learner updates. Then `--steps` RL steps of each through the real trainer (builder.build_trainer), same seed.
Times are medians over the steps after the first (which compiles) that ran an update. The PEFT check loads the
base in transformers, puts the exported adapter on it with peft.PeftModel.from_pretrained and compares f32
logits with the run's own model.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import jax
import numpy as np
from flax import nnx

from bench_common import table  # first: puts the repository on sys.path
from rlve_jax import export
from rlve_jax.builder import build_trainer
from rlve_jax.defaults import validate
from rlve_jax.models import convert, lora
from rlve_jax.runtime import trainable


def tiny(steps: int):
    from configs.tiny import get_config

    config = get_config()
    config.steps, config.checkpoint.every, config.log.progress = steps, 1000, False
    return config


def warm_base(workdir: Path) -> Path:
    """configs/tiny.py's warm start alone, exported as an HF checkpoint (weights, config, tokenizer)."""
    config = tiny(0)
    validate(config)
    build_trainer(config, workdir).run()
    return export.export(workdir, workdir / "hf")


def run(rank: int, steps: int, workdir: Path, base: Path) -> dict:
    """`steps` RL steps from the base (LoRA of that rank, or every weight); its counts and median times."""
    config = tiny(steps)
    config.model.path, config.model.preset, config.tokenizer.path = str(base), "", str(base)
    config.warm_start.steps = 0
    config.model.lora.rank = rank
    validate(config)
    trainer = build_trainer(config, workdir)
    trainer.run()
    optimized, frozen = trainable.split_trainable(trainer.learner.state.params)
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in records if r.get("kind", "train") == "train" and "train/loss" in r][1:]
    return {"trainable": sum(x.size for x in jax.tree.leaves(optimized)),
            "frozen": sum(x.size for x in jax.tree.leaves(frozen)),
            "optimizer bytes": sum(x.nbytes for x in jax.tree.leaves(trainer.learner.state.opt_state)),
            "train s": float(np.median([r["time/train"] for r in train])),
            "step s": float(np.median([r["time/step"] for r in train])), "updates": len(train) + 1,
            "trainer": trainer}


def peft_difference(workdir: Path, trainer) -> tuple[float, float]:
    """max |logit diff| of peft (base + exported adapter) and of the merged export, against our model."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    policy = trainer.policy
    here = jax.devices()[0]
    params = jax.device_put(jax.device_get(trainer.learner.state.params), here)
    _, frozen = trainable.split_trainable(params)
    base = nnx.merge(lora.plain_graphdef(policy.model_config), frozen, policy.rest)
    rng = np.random.default_rng(0)
    tokens = rng.integers(3, policy.model_config.vocab_size, (4, 32)).astype(np.int32)
    positions = np.broadcast_to(np.arange(32, dtype=np.int32), tokens.shape)
    mask = np.ones_like(tokens, bool)
    ours = np.asarray(jax.jit(lambda p: nnx.merge(policy.graphdef, p, policy.rest)(tokens, positions, mask))(params))
    with tempfile.TemporaryDirectory() as tmp:
        convert.save_hf(base, f"{tmp}/base")
        export.export(workdir, f"{tmp}/adapter", format="peft")
        export.export(workdir, f"{tmp}/merged")
        hf = AutoModelForCausalLM.from_pretrained(f"{tmp}/base", dtype=torch.float32).eval()
        adapted = PeftModel.from_pretrained(hf, f"{tmp}/adapter").eval()
        merged = AutoModelForCausalLM.from_pretrained(f"{tmp}/merged", dtype=torch.float32).eval()
        with torch.no_grad():
            theirs = adapted(input_ids=torch.tensor(tokens, dtype=torch.long)).logits.numpy()
            merged_logits = merged(input_ids=torch.tensor(tokens, dtype=torch.long)).logits.numpy()
    return float(np.abs(ours - theirs).max()), float(np.abs(ours - merged_logits).max())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--rank", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = warm_base(Path(tmp) / "warm")
        full = run(0, args.steps, Path(tmp) / "full", base)
        adapters = run(args.rank, args.steps, Path(tmp) / "lora", base)
        rows = [(name, f"{r['trainable']:,}", f"{r['frozen']:,}", f"{r['optimizer bytes']:,}", r["updates"],
                 f"{r['train s']:.3f}", f"{r['step s']:.3f}", f"{r['train s'] / full['train s']:.2f}")
                for name, r in (("full fine-tuning", full), (f"LoRA rank {args.rank}", adapters))]
        table(rows, ("run", "trainable params", "frozen params", "optimizer state B", "updates", "train s/step",
                     "step s", "train time vs full"))
        peft, merged = peft_difference(Path(tmp) / "lora", adapters["trainer"])
        print(f"LoRA export: peft (base + adapter) max |logit diff| {peft:.2e}; merged HF export {merged:.2e} (f32)")


if __name__ == "__main__":
    main()
