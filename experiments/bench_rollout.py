"""Rollout throughput on a long-tail workload: the engine (rlve_jax/generation/engine.py) against the static sampler.

    python experiments/bench_rollout.py          # CPU: tiny Qwen3-shaped model, M=512, engine vs static
    python experiments/bench_rollout.py --gpu    # GPU: Qwen2.5-1.5B-shaped random bf16, 512 prompts x 16, M=8192

Workload: every row gets a target length drawn lognormal with median M/8 and 10% at M (sigma =
ln 8 / z_0.9), enforced as a per-row response limit (`row_limits` / Row.max_new_tokens) so both
samplers produce rows of the same lengths from the same keys (tests/test_engine.py checks equal
tokens). Both get the same KV budget (the engine's slots plus its prefill batch; the static
sampler's chunks); tokens/s counts generated tokens over the wall time of the whole call (prefills
included), after warm-up calls; "decode row-steps" is the compute either does (rows a decode step
runs over x steps), independent of the machine's load.
GPU: tokens/s and decode HBM bandwidth (weights per decode step plus the KV positions the live rows
read) as a fraction of a device-copy bandwidth measured in the same run.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bench_common import best_time, table  # first: puts the repository on sys.path
from rlve_jax.generation import engine, sampler
from rlve_jax.models.model import ModelConfig, Transformer

Z90 = 1.2815515655446004  # the standard normal's 0.9 quantile


def long_tail_lengths(n: int, max_new: int, seed: int = 0) -> np.ndarray:
    """Lognormal lengths, median max_new / 8, P(length >= max_new) = 0.1, clipped to [1, max_new]."""
    sigma = np.log(8.0) / Z90
    draws = np.exp(np.log(max_new / 8) + sigma * np.random.default_rng(seed).standard_normal(n))
    return np.clip(np.round(draws), 1, max_new).astype(np.int32)


def workload(cfg: ModelConfig, prompts: int, group: int, max_new: int, prompt_range: tuple[int, int], seed: int = 0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(prompt_range[0], prompt_range[1] + 1, prompts)
    return [rng.integers(0, cfg.vocab_size, n).tolist() for n in lengths], long_tail_lengths(prompts * group, max_new)


def random_model(cfg: ModelConfig) -> Transformer:
    return nnx.jit(lambda: Transformer(cfg, rngs=nnx.Rngs(0)))()


def cpu(args) -> None:
    cfg = ModelConfig.preset("tiny")
    model = random_model(cfg)
    M, G = args.max_new, args.group
    prompts, limits = workload(cfg, args.prompts, G, M, (16, 64))
    eng = engine.Engine(cfg, max_prompt_tokens=64, max_new_tokens=M, segment_steps=args.segment,
                        budget_tokens=(args.slots + 1) * engine.slot_length(64, M))
    kwargs = dict(n_per_prompt=G, temperature=1.0, stop_ids=[-1], rng=0)
    runs = {
        "static": lambda limits: sampler.generate(model, prompts, max_new_tokens=M, row_limits=limits,
                                                  cache_budget_tokens=eng.budget_tokens, prompt_buckets=[64], **kwargs),
        "engine": lambda limits: eng.generate(model, prompts, max_new_tokens=limits, **kwargs),
    }
    for run in runs.values():  # warm-up: the same shapes with short rows compile every function
        run(np.minimum(limits, 40))
    # ... and a few full rows compile the engine's tail (fewer slots, rows re-prefilled with their tokens)
    eng.generate(model, prompts[:4], max_new_tokens=limits[:4 * G], **kwargs)
    outputs, seconds = {}, {}
    for name, run in runs.items():
        eng.stats = engine.EngineStats()
        for _ in range(args.repeats):
            start = time.perf_counter()
            outputs[name] = run(limits)
            seconds[name] = min(seconds.get(name, np.inf), time.perf_counter() - start)
    np.testing.assert_array_equal(outputs["engine"].lengths, outputs["static"].lengths)
    # Same keys, but a near-uniform random model over 152k tokens lets float rounding move a draw to a neighbour
    same = np.mean((outputs["engine"].tokens == outputs["static"].tokens).all(axis=1))
    tokens = int(outputs["engine"].lengths.sum())
    # Decode row-steps (rows a step computes x steps): the static chunks of sampler.generate's size run until
    # their longest row stops; the engine's segments run over the slots they hold (EngineStats.slot_steps).
    chunk = (1 << (eng.budget_tokens // (G * (64 + M))).bit_length() - 1) * G
    row_steps = {"static": chunk * int(limits.reshape(-1, chunk).max(axis=1).sum()),
                 "engine": eng.stats.slot_steps // args.repeats}
    rows = [(name, len(limits), eng.slots if name == "engine" else f"{chunk}/chunk", f"{tokens:,}",
             f"{row_steps[name]:,}", f"{seconds[name]:.1f}", f"{tokens / seconds[name]:,.0f}",
             f"{seconds['static'] / seconds[name]:.2f}x") for name in runs]
    print(f"long-tail rollout, tiny Qwen3 shape (V={cfg.vocab_size}, D={cfg.hidden_size}, L={cfg.num_layers}), f32, "
          f"{jax.devices()[0].platform}; {args.prompts} prompts x {G}, M={M}, lengths median {int(np.median(limits))}, "
          f"{np.mean(limits == M):.0%} at M; KV budget {eng.budget_tokens:,} tokens for both; {same:.0%} of rows "
          "token-identical")
    table(rows, ("sampler", "rows", "slots", "tokens", "decode row-steps", "seconds", "tokens/s", "vs static"))


def copy_bandwidth(nbytes: int = 4 << 30) -> float:
    x = jnp.ones(nbytes // 2, jnp.bfloat16)
    f = jax.jit(lambda x: x + 1)
    return 2 * nbytes / best_time(lambda: f(x).block_until_ready(), 10)  # read + write


def gpu(args) -> None:
    cfg = ModelConfig.preset(args.preset)
    model = random_model(cfg)
    M, G = args.max_new, args.group
    prompts, limits = workload(cfg, args.prompts, G, M, (256, 1024))
    bandwidth = copy_bandwidth()
    eng = engine.Engine(cfg, max_prompt_tokens=1024, max_new_tokens=M, segment_steps=args.segment,
                        budget_tokens=args.budget or None)
    kwargs = dict(n_per_prompt=G, max_new_tokens=limits, temperature=1.0, stop_ids=[-1], rng=0)
    n_warm = max(1, -(-eng.slots // G))  # warm-up: one slot-full of short rows compiles the decode segment
    eng.generate(model, prompts[:n_warm], **{**kwargs, "max_new_tokens": np.minimum(limits[:n_warm * G], 64)})
    eng.stats = engine.EngineStats()
    start = time.perf_counter()
    out = eng.generate(model, prompts, **kwargs)
    seconds = time.perf_counter() - start
    param_bytes = sum(x.nbytes for x in jax.tree.leaves(nnx.state(model)))
    moved = eng.stats.decode_steps * param_bytes + eng.stats.kv_tokens_read * engine.kv_bytes_per_token(cfg)
    tokens = int(out.lengths.sum())
    print(f"long-tail rollout, {args.preset}-shaped random model, {cfg.compute_dtype}, {jax.devices()[0].device_kind}, "
          f"copy bandwidth {bandwidth / 1e9:,.0f} GB/s; {args.prompts} prompts x {G}, M={M}, "
          f"KV budget {eng.budget_tokens:,} tokens ({eng.slots} slots of {eng.slot_length})")
    table([(len(limits), eng.slots, f"{tokens:,}", f"{seconds:.1f}", f"{tokens / seconds:,.0f}", eng.stats.decode_steps,
            f"{moved / seconds / 1e9:,.0f}", f"{100 * moved / seconds / bandwidth:.0f}%")],
          ("rows", "slots", "tokens", "seconds", "tokens/s", "decode steps", "decode GB/s", "of copy bandwidth"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--preset", default="qwen2.5-1.5b", help="GPU model shape")
    parser.add_argument("--prompts", type=int, help="default: 32 on CPU, 512 on GPU")
    parser.add_argument("--group", type=int, default=None, help="rows per prompt; default: 4 on CPU, 16 on GPU")
    parser.add_argument("--max-new", type=int, default=None, help="M; default: 512 on CPU, 8192 on GPU")
    parser.add_argument("--slots", type=int, default=16, help="CPU: decode slots (the static chunks get the same)")
    parser.add_argument("--budget", type=int, default=0, help="GPU: KV budget in tokens; 0 = from free memory")
    parser.add_argument("--segment", type=int, default=16, help="decode steps per engine segment")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    args.prompts = args.prompts or (512 if args.gpu else 32)
    args.group = args.group or (16 if args.gpu else 4)
    args.max_new = args.max_new or (8192 if args.gpu else 512)
    gpu(args) if args.gpu else cpu(args)


if __name__ == "__main__":
    main()
