"""The engine's first call: compile time and compiled shapes, without and with JAX's persistent compilation
cache (JAX_COMPILATION_CACHE_DIR), each in a fresh process.

    python experiments/bench_engine_compile.py [--vocab 151936] [--rows 64] [--new-tokens 64]

The random "tiny" preset (Qwen3-shaped, D=256, L=4, the given vocabulary, f32), `--rows` rows of random prompts of
8-120 tokens, a KV budget of 16 slots, on CPU. Runs: "cold" (no cache), "cache written" (an empty cache
directory: compiles and writes) and "cache read" (the same directory, a new process). One table: the first
call's seconds, the number of compiled shapes per jitted function, the ratio against the cold run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_call(vocab: int, rows: int, new_tokens: int) -> dict:
    """In this process: the engine's first generate call -> seconds and compiled shapes per function."""
    sys.path.insert(0, REPO)
    import numpy as np
    from flax import nnx

    from rlve_jax.generation import engine
    from rlve_jax.models.model import ModelConfig, Transformer

    cfg = ModelConfig.preset("tiny", vocab_size=vocab)  # Qwen3-shaped, D=256, L=4, f32
    model = Transformer(cfg, rngs=nnx.Rngs(0))
    rng = np.random.default_rng(0)
    prompts = [rng.integers(1, vocab, int(n)).tolist() for n in rng.integers(8, 120, rows)]
    slot = engine.slot_length(128, new_tokens)
    eng = engine.Engine(cfg, max_prompt_tokens=128, max_new_tokens=new_tokens, budget_tokens=17 * slot,
                        segment_steps=16)
    limits = rng.integers(1, new_tokens + 1, rows)  # ragged lengths: refills, a tail, shrinking
    start = time.perf_counter()
    eng.generate(model, prompts, max_new_tokens=limits, stop_ids=[])
    seconds = time.perf_counter() - start
    shapes = {name: getattr(engine, name)._cache_size() for name in ("_prefill", "_segment", "_insert",
                                                                       "_first_tokens")}
    return {"seconds": seconds, **shapes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vocab", type=int, default=151936)
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(first_call(args.vocab, args.rows, args.new_tokens)))
        return
    command = [sys.executable, __file__, "--child", f"--vocab={args.vocab}", f"--rows={args.rows}",
               f"--new-tokens={args.new_tokens}"]
    base = {k: v for k, v in os.environ.items() if not k.startswith("JAX_COMPILATION_CACHE")}
    base.update(JAX_PLATFORMS="cpu")
    results = []
    with tempfile.TemporaryDirectory() as cache:
        cached = {**base, "JAX_COMPILATION_CACHE_DIR": cache, "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
        for name, env in (("cold", base), ("cache written", cached), ("cache read", cached)):
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
            results.append((name, json.loads(out.strip().splitlines()[-1])))
    cold = results[0][1]["seconds"]
    print(f"engine first call, CPU, V={args.vocab}, {args.rows} rows, up to {args.new_tokens} new tokens")
    print(f"{'run':14s} {'seconds':>8s} {'x cold':>7s}  compiled shapes (prefill, segment, insert, first tokens)")
    for name, r in results:
        print(f"{name:14s} {r['seconds']:8.1f} {r['seconds'] / cold:7.2f}  "
              f"{r['_prefill']}, {r['_segment']}, {r['_insert']}, {r['_first_tokens']}")


if __name__ == "__main__":
    main()
