"""Forward-pass throughput: ours against transformers (CPU), or prefill and train-step MFU on one GPU.

    python experiments/bench_forward.py                 # CPU: tiny Qwen3-shaped model, f32, vs transformers
    python experiments/bench_forward.py --gpu           # GPU: Qwen2.5-1.5B-shaped random model, bf16
    python experiments/bench_forward.py --gpu --attention reference

CPU prints tokens/s for our jitted forward (logits for every position) and for
transformers' eager forward on the same weights, and their ratio; then the blockwise
attention against the XLA reference at 2k and 8k tokens (the tiny model's heads, forward
and forward+backward, time and compiled temporaries). GPU prints prefill tokens/s (hidden
states plus last-token logits) and MFU, then the train step's (one micro-batch's loss and
gradients, rematerialised, as the trainer runs it) MFU at 8k/16k/32k tokens, both against a
bf16 matmul peak measured in the same run.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bench_common import best_time, table, tiny_pair  # first: puts the repository on sys.path
from rlve_jax.models import attention
from rlve_jax.rl import losses
from rlve_jax.runtime import sharding
from rlve_jax.rl.batching import build_sequences
from rlve_jax.models.model import ModelConfig, Transformer


CPU_SHAPES = ((1, 128), (4, 256), (4, 512))  # (batch, length)
GPU_SHAPES = ((8, 1024), (4, 4096), (1, 16384))
ATTENTION_LENGTHS = (2048, 8192)  # CPU, one sequence
TRAIN_LENGTHS = (8192, 16384, 32768)  # GPU, one sequence per train step


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
    attention_rows(cfg, min(args.repeats, 2))


def attention_rows(cfg: ModelConfig, repeats: int) -> None:
    """Blockwise attention against the XLA reference on one causal sequence: time and temporaries."""
    N, K, H = cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
    rows = []
    for length in ATTENTION_LENGTHS:
        rng = np.random.default_rng(0)
        q, k, v = (jnp.asarray(rng.normal(size=(1, length, n, H)), jnp.float32) for n in (N, K, K))
        result = {}
        for impl in ("reference", "blockwise"):
            fwd = jax.jit(lambda q, k, v, impl=impl: attention.attend(q, k, v, None, impl=impl))
            grad = jax.jit(jax.grad(lambda q, k, v, impl=impl: jnp.sum(attention.attend(q, k, v, None, impl=impl)),
                                    (0, 1, 2)))
            temp = grad.lower(q, k, v).compile().memory_analysis().temp_size_in_bytes
            result[impl] = (best_time(lambda: fwd(q, k, v), repeats), best_time(lambda: grad(q, k, v), repeats), temp)
        (rf, rb, rt), (bf, bb, bt) = result["reference"], result["blockwise"]
        rows.append((length, f"{rf * 1e3:.1f}", f"{bf * 1e3:.1f}", f"{rf / bf:.2f}x", f"{rb * 1e3:.1f}",
                     f"{bb * 1e3:.1f}", f"{rb / bb:.2f}x", f"{rt / 2**20:,.0f}", f"{bt / 2**20:,.0f}"))
    print(f"\ncausal attention, one sequence, N={N} K={K} H={H}, f32, block {attention.DEFAULT_BLOCK}: "
          "reference (XLA) vs blockwise; ratio = reference time / blockwise time")
    table(rows, ("length", "ref fwd ms", "blockwise fwd ms", "ratio", "ref fwd+bwd ms", "blockwise fwd+bwd ms",
                 "ratio", "ref bwd temp MiB", "blockwise bwd temp MiB"))


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
    print(f"prefill, {args.preset}-shaped random model, {cfg.compute_dtype}, attention="
          f"{attention.resolve(args.attention)}, {jax.devices()[0].device_kind}, measured bf16 matmul peak "
          f"{peak / 1e12:.0f} TFLOP/s")
    table(rows, ("batch", "length", "tokens/s", "TFLOP/s", "MFU"))
    train_step_rows(args, peak)


def train_step_rows(args, peak: float) -> None:
    """One micro-batch of one sequence through the trainer's own gradient accumulation (remat, scanned
    layers, chunked logits), on one device. Model FLOPs: 3x the forward's (matmuls, causal attention,
    logits), recomputation not counted."""
    from rlve_jax.rl.train_step import accumulator_shardings, make_accumulate, make_micro_loss, zero_accumulator

    cfg = ModelConfig.preset(args.preset, attention_impl=args.attention, remat=True, scan_layers=True)
    model = nnx.jit(lambda: Transformer(cfg, rngs=nnx.Rngs(0)))()
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    mesh = sharding.make_mesh(devices=jax.devices()[:1])
    micro_loss = make_micro_loss(graphdef, rest, losses.LossConfig(), 1.0)
    shardings = accumulator_shardings(micro_loss, params, mesh)
    accumulate = make_accumulate(micro_loss, shardings)
    zeros = jax.jit(lambda: zero_accumulator(micro_loss, params), out_shardings=shardings)
    matmul_params = cfg.num_layers * (cfg.hidden_size * cfg.head_dim * (2 * cfg.num_heads + 2 * cfg.num_kv_heads)
                                      + 3 * cfg.hidden_size * cfg.intermediate_size)
    rng = np.random.default_rng(0)
    rows = []
    for length in TRAIN_LENGTHS:
        prompt = rng.integers(0, cfg.vocab_size, 512).tolist()
        response = rng.integers(0, cfg.vocab_size, length - 512).tolist()
        micro = build_sequences([prompt], [response], 0, [np.full(length - 512, -1.0, np.float32)], [1.0],
                                length=length)
        micro = jax.device_put(micro, sharding.batch_sharding(mesh, (1,)))
        acc = zeros()

        def step():
            nonlocal acc
            acc = accumulate(params, acc, micro)
            return acc.loss

        seconds = best_time(step, args.repeats)
        forward = (2 * matmul_params * length + 2 * cfg.num_layers * length ** 2 * cfg.num_heads * cfg.head_dim
                   + 2 * length * cfg.hidden_size * cfg.vocab_size)
        flops = 3 * forward
        rows.append((length, f"{length / seconds:,.0f}", f"{flops / seconds / 1e12:.1f}",
                     f"{100 * flops / seconds / peak:.1f}%"))
    print(f"\ntrain step (loss + gradients of one sequence), {args.preset}-shaped, {cfg.compute_dtype}, remat, "
          f"attention={attention.resolve(args.attention)}")
    table(rows, ("length", "tokens/s", "TFLOP/s", "MFU"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--attention", default="auto", choices=attention.IMPLEMENTATIONS,
                        help="GPU attention implementation (auto: cuDNN)")
    parser.add_argument("--preset", default="qwen2.5-1.5b", help="GPU model shape")
    parser.add_argument("--vocab", type=int, default=151936, help="CPU model vocabulary")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    gpu(args) if args.gpu else cpu(args)


if __name__ == "__main__":
    main()
