"""Forward-pass throughput: ours against transformers (CPU), or prefill MFU on one GPU.

    python experiments/bench_forward.py                 # CPU: tiny Qwen3-shaped model, f32, vs transformers
    python experiments/bench_forward.py --gpu           # GPU: Qwen2.5-1.5B-shaped random model, bf16
    python experiments/bench_forward.py --gpu --attention cudnn

CPU prints tokens/s for our jitted forward (logits for every position) and for
transformers' eager forward on the same weights, and their ratio. GPU prints prefill
tokens/s (hidden states plus last-token logits) and MFU against a bf16 matmul peak
measured in the same run.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bench_common import best_time, table, tiny_pair  # first: puts the repository on sys.path
from rlve_jax.model import ModelConfig, Transformer


CPU_SHAPES = ((1, 128), (4, 256), (4, 512))  # (batch, length)
GPU_SHAPES = ((8, 1024), (4, 4096), (1, 16384))


def cpu(args) -> None:
    import torch

    cfg, hf, model = tiny_pair(vocab_size=args.vocab)
    rows = []
    for batch, length in CPU_SHAPES:
        tokens = np.random.default_rng(0).integers(0, cfg.vocab_size, (batch, length)).astype(np.int32)
        positions = np.broadcast_to(np.arange(length, dtype=np.int32), tokens.shape)
        mask = np.ones_like(tokens, bool)
        graphdef, state = nnx.split(model)
        forward = jax.jit(lambda s, t, p, m: nnx.merge(graphdef, s)(t, p, m))
        ours = best_time(lambda: forward(state, tokens, positions, mask), args.repeats)
        with torch.no_grad():
            ids = torch.tensor(tokens, dtype=torch.long)
            theirs = best_time(lambda: hf(input_ids=ids).logits, args.repeats)
        n = batch * length
        rows.append((batch, length, f"{n / ours:,.0f}", f"{n / theirs:,.0f}", f"{theirs / ours:.2f}x"))
    print(f"forward, tiny Qwen3 (D={cfg.hidden_size}, L={cfg.num_layers}, V={cfg.vocab_size}), f32, "
          f"{jax.devices()[0].platform}, torch threads={torch.get_num_threads()}")
    table(rows, ("batch", "length", "ours tok/s", "transformers tok/s", "ratio"))


def matmul_peak(n: int = 8192) -> float:
    a = jnp.ones((n, n), jnp.bfloat16)
    f = jax.jit(lambda a: a @ a)
    return 2 * n ** 3 / best_time(lambda: f(a), 10)


def gpu(args) -> None:
    cfg = ModelConfig.preset(args.preset, attention_impl=args.attention)
    model = nnx.jit(lambda: Transformer(cfg, rngs=nnx.Rngs(0)))()
    graphdef, state = nnx.split(model)

    @jax.jit
    def prefill(state, tokens, positions, mask):
        m = nnx.merge(graphdef, state)
        h, _ = m.hidden(tokens, positions, mask)
        return m.logits(h[:, -1])

    peak = matmul_peak()
    matmul_params = cfg.num_layers * (cfg.hidden_size * cfg.head_dim * (2 * cfg.num_heads + 2 * cfg.num_kv_heads)
                                      + 3 * cfg.hidden_size * cfg.intermediate_size)
    rows = []
    for batch, length in GPU_SHAPES:
        tokens = jnp.zeros((batch, length), jnp.int32)
        positions = jnp.broadcast_to(jnp.arange(length, dtype=jnp.int32), tokens.shape)
        mask = jnp.ones_like(tokens, bool)
        seconds = best_time(lambda: prefill(state, tokens, positions, mask), args.repeats)
        n = batch * length
        flops = 2 * matmul_params * n + 2 * cfg.num_layers * batch * length ** 2 * cfg.num_heads * cfg.head_dim
        flops += 2 * batch * cfg.hidden_size * cfg.vocab_size
        rows.append((batch, length, f"{n / seconds:,.0f}", f"{flops / seconds / 1e12:.1f}",
                     f"{100 * flops / seconds / peak:.1f}%"))
    print(f"prefill, {args.preset}-shaped random model, {cfg.compute_dtype}, attention={args.attention or 'xla'}, "
          f"{jax.devices()[0].device_kind}, measured bf16 matmul peak {peak / 1e12:.0f} TFLOP/s")
    table(rows, ("batch", "length", "tokens/s", "TFLOP/s", "MFU"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--attention", choices=["xla", "cudnn"], help="GPU attention implementation")
    parser.add_argument("--preset", default="qwen2.5-1.5b", help="GPU model shape")
    parser.add_argument("--vocab", type=int, default=151936, help="CPU model vocabulary")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    gpu(args) if args.gpu else cpu(args)


if __name__ == "__main__":
    main()
