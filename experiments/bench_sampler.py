"""Sampler throughput: ours against transformers `generate` (CPU), or decode bandwidth on one GPU.

    python experiments/bench_sampler.py          # CPU: tiny Qwen3-shaped model, real vocabulary
    python experiments/bench_sampler.py --gpu    # GPU: Qwen2.5-1.5B-shaped random model, bf16

CPU: V=151936, D=256, 4 layers, 4 heads, 2 KV heads, batch 8, 32 new tokens, f32, greedy and
T=0.6 / top-p 0.95; the same weights in transformers; the table gives new tokens/s for both and the ratio.
GPU: batch 64 and 256, prompt 512, 1024 new tokens; tokens/s and the decode memory
bandwidth (weights + KV cache read per step) as a fraction of a device-copy bandwidth
measured in the same run.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bench_common import best_time, table, tiny_pair  # first: puts the repository on sys.path
from rlve_jax.generation import sampler
from rlve_jax.models.model import ModelConfig, Transformer


GPU_BATCHES = (64, 256)
GPU_PROMPT_NEW = (512, 1024)


def cpu(args) -> None:
    import torch

    cfg, hf, model = tiny_pair()
    batch, new = 8, 32
    rows = []
    # greedy, and the held-out evaluation's nucleus sampling (transformers' default top-k 50 turned off)
    for decoding, temperature, top_p in (("greedy", 0.0, 1.0), ("T=0.6 top-p 0.95", 0.6, 0.95)):
        for prompt_len in (16, 128):
            prompts = np.random.default_rng(0).integers(0, cfg.vocab_size, (batch, prompt_len))
            ours = best_time(lambda: sampler.generate(model, prompts.tolist(), max_new_tokens=new,
                                                      temperature=temperature, top_p=top_p), args.repeats)
            ids = torch.tensor(prompts, dtype=torch.long)
            sampling = dict(do_sample=True, temperature=temperature, top_p=top_p, top_k=0) if temperature else {}
            with torch.no_grad():
                theirs = best_time(lambda: hf.generate(ids, max_new_tokens=new, min_new_tokens=new, eos_token_id=None,
                                                       pad_token_id=0, **(sampling or {"do_sample": False})),
                                   args.repeats)
            n = batch * new
            rows.append((decoding, batch, prompt_len, new, f"{n / ours:,.0f}", f"{n / theirs:,.0f}",
                         f"{theirs / ours:.2f}x"))
    print(f"generation, tiny Qwen3 (V={cfg.vocab_size}, D={cfg.hidden_size}, L={cfg.num_layers}, "
          f"N={cfg.num_heads}, K={cfg.num_kv_heads}), f32, {jax.devices()[0].platform}")
    table(rows, ("decoding", "batch", "prompt", "new", "ours tok/s", "transformers tok/s", "ratio"))


def copy_bandwidth(nbytes: int = 4 << 30) -> float:
    x = jnp.ones(nbytes // 2, jnp.bfloat16)
    f = jax.jit(lambda x: x + 1)
    return 2 * nbytes / best_time(lambda: f(x).block_until_ready(), 10)  # read + write


def gpu(args) -> None:
    cfg = ModelConfig.preset(args.preset, attention_impl=args.attention)
    model = nnx.jit(lambda: Transformer(cfg, rngs=nnx.Rngs(0)))()
    param_bytes = sum(x.nbytes for x in jax.tree.leaves(nnx.state(model)))
    kv_per_token = cfg.num_layers * 2 * cfg.num_kv_heads * cfg.head_dim * jnp.dtype(cfg.compute_dtype).itemsize
    bandwidth = copy_bandwidth()
    prompt, new = GPU_PROMPT_NEW
    rows = []
    for batch in GPU_BATCHES:
        prompts = np.random.default_rng(0).integers(0, cfg.vocab_size, (batch, prompt)).tolist()
        # stop_ids that never occur, so every row decodes all `new` tokens.
        run = lambda: sampler.generate(model, prompts, max_new_tokens=new, temperature=1.0, stop_ids=[-1])  # noqa: E731
        seconds = best_time(run, args.repeats)
        moved = new * param_bytes + kv_per_token * batch * sum(prompt + t for t in range(new))
        rows.append((batch, prompt, new, f"{batch * new / seconds:,.0f}", f"{moved / seconds / 1e9:,.0f}",
                     f"{100 * moved / seconds / bandwidth:.0f}%"))
    print(f"sampling, {args.preset}-shaped random model, {cfg.compute_dtype}, attention={args.attention or 'xla'}, "
          f"{jax.devices()[0].device_kind}, copy bandwidth {bandwidth / 1e9:,.0f} GB/s")
    table(rows, ("batch", "prompt", "new", "tokens/s", "decode GB/s", "of copy bandwidth"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--attention", choices=["xla", "cudnn"], help="GPU attention implementation")
    parser.add_argument("--preset", default="qwen2.5-1.5b", help="GPU model shape")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    gpu(args) if args.gpu else cpu(args)


if __name__ == "__main__":
    main()
