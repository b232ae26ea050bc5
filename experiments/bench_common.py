"""Helpers shared by the benchmarks: timing, tables, a tiny model in both frameworks."""

from __future__ import annotations

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402

from rlve_jax.models import convert  # noqa: E402
from rlve_jax.models.model import ModelConfig, Transformer  # noqa: E402


def best_time(fn, repeats: int) -> float:
    """Best wall time of `repeats` calls after one warm-up (compilation) call."""
    jax.block_until_ready(fn())
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        best = min(best, time.perf_counter() - start)
    return best


def table(rows: list[tuple], header: tuple) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).rjust(w) for x, w in zip(row, widths)))


def tiny_pair(**overrides):
    """(config, transformers Qwen3 model, our model with the same random weights), f32 on CPU."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.set_num_threads(os.cpu_count())
    cfg = ModelConfig.preset("tiny", **overrides)
    hf_cfg = Qwen3Config(**{k: v for k, v in cfg.to_hf().items() if k not in ("architectures", "model_type")})
    torch.manual_seed(0)
    hf = Qwen3ForCausalLM(hf_cfg).eval()
    with tempfile.TemporaryDirectory() as tmp:
        hf.save_pretrained(tmp)
        model: Transformer = convert.load_hf(tmp)
    return cfg, hf, model
