"""Flax NNX decoder for the Qwen2 / Qwen2.5 / Qwen3 dense family.

One layer code path serves training (full sequence, causal, right-padded batch) and
sampling (prefill writes a KV cache, decode reads it). Parameters are stored in
`param_dtype` and cast to `compute_dtype` at use; RMSNorm, softmax and logits run in f32.
Shapes: B batch, T query length, S key length, D model, N query heads, K KV heads,
H head dim, F MLP hidden, V vocabulary, L layers.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from flax import nnx

from rlve_jax.models import attention, decode_attention

# ---------------------------------------------------------------------------
# Configuration


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Architecture plus numerics; `dataclasses.replace` to override fields."""

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rope_theta: float = 1_000_000.0
    rms_norm_eps: float = 1e-6
    tie_word_embeddings: bool = False
    qkv_bias: bool = False  # Qwen2/2.5: True
    o_bias: bool = False  # Qwen3 `attention_bias` also adds one to o_proj
    qk_norm: bool = False  # Qwen3: RMSNorm on each query/key head
    max_position_embeddings: int = 32768
    param_dtype: str = "float32"
    compute_dtype: str = "float32"
    remat: bool = False  # recompute each layer in the backward pass
    scan_layers: bool = False  # lax.scan over stacked layers (faster compiles) or a Python loop
    attention_impl: str = "auto"  # full-sequence attention (models/attention.py): auto, reference, blockwise, ...
    decode_attention: str | None = None  # the engine's slot-cache decode: None = backend default (decode_attention.py)
    logits_chunk: int = 512  # sequence chunk for token_logprobs (bounds f32 [B, C, V] logits)

    @property
    def arch(self) -> str:
        """HF model_type this configuration exports as."""
        return "qwen3" if self.qk_norm else "qwen2"

    @classmethod
    def preset(cls, name: str, **overrides) -> "ModelConfig":
        if name not in PRESETS:
            raise KeyError(f"unknown preset {name!r}; known: {sorted(PRESETS)}")
        return dataclasses.replace(PRESETS[name], **overrides)

    @classmethod
    def from_hf(cls, path_or_dict: str | os.PathLike | dict[str, Any], **overrides) -> "ModelConfig":
        """From an HF config.json (a directory, the file, or its dict); rejects what we do not model."""
        hf = path_or_dict if isinstance(path_or_dict, dict) else _read_hf_config(path_or_dict)
        model_type = hf.get("model_type")
        if model_type not in ("qwen2", "qwen3"):
            raise ValueError(f"unsupported model_type {model_type!r} (qwen2 and qwen3 dense only)")
        if hf.get("use_sliding_window") or "sliding_attention" in (hf.get("layer_types") or []):
            raise ValueError("sliding-window attention is enabled in this config; it is not supported")
        if hf.get("hidden_act", "silu") != "silu":
            raise ValueError(f"unsupported hidden_act {hf['hidden_act']!r}")
        rope = hf.get("rope_parameters") or hf.get("rope_scaling") or {}
        if rope.get("rope_type", rope.get("type", "default")) != "default":
            raise ValueError(f"unsupported RoPE scaling {rope}")
        theta = rope.get("rope_theta", hf.get("rope_theta", 10000.0))
        heads = hf["num_attention_heads"]
        bias = hf.get("attention_bias", False)
        dtype = str(hf.get("dtype") or hf.get("torch_dtype") or "float32")
        cfg = cls(
            vocab_size=hf["vocab_size"],
            hidden_size=hf["hidden_size"],
            intermediate_size=hf["intermediate_size"],
            num_layers=hf["num_hidden_layers"],
            num_heads=heads,
            num_kv_heads=hf.get("num_key_value_heads", heads),
            head_dim=hf.get("head_dim") or hf["hidden_size"] // heads,
            rope_theta=float(theta),
            rms_norm_eps=hf.get("rms_norm_eps", 1e-6),
            tie_word_embeddings=hf.get("tie_word_embeddings", False),
            qkv_bias=model_type == "qwen2" or bias,
            o_bias=model_type == "qwen3" and bias,
            qk_norm=model_type == "qwen3",
            max_position_embeddings=hf.get("max_position_embeddings", 32768),
            param_dtype=dtype,
            compute_dtype=dtype,
        )
        return dataclasses.replace(cfg, **overrides)

    def to_hf(self) -> dict[str, Any]:
        """The HF config.json fields (both rope spellings, so transformers 4 and 5 read it)."""
        if self.arch == "qwen2" and (not self.qkv_bias or self.o_bias):
            raise ValueError("qwen2 export needs qkv_bias=True and o_bias=False")
        if self.arch == "qwen3" and self.qkv_bias != self.o_bias:
            raise ValueError("qwen3 export needs qkv_bias == o_bias (attention_bias)")
        hf = {
            "architectures": ["Qwen3ForCausalLM" if self.arch == "qwen3" else "Qwen2ForCausalLM"],
            "model_type": self.arch,
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden_size,
            "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_layers,
            "num_attention_heads": self.num_heads,
            "num_key_value_heads": self.num_kv_heads,
            "head_dim": self.head_dim,
            "hidden_act": "silu",
            "max_position_embeddings": self.max_position_embeddings,
            "rms_norm_eps": self.rms_norm_eps,
            "rope_theta": self.rope_theta,
            "rope_parameters": {"rope_type": "default", "rope_theta": self.rope_theta},
            "tie_word_embeddings": self.tie_word_embeddings,
            "use_sliding_window": False,
            "torch_dtype": self.param_dtype,
            "dtype": self.param_dtype,
        }
        if self.arch == "qwen3":
            hf["attention_bias"] = self.qkv_bias
        return hf


def _read_hf_config(path: str | os.PathLike) -> dict[str, Any]:
    path = os.fspath(path)
    with open(os.path.join(path, "config.json") if os.path.isdir(path) else path) as f:
        return json.load(f)


_QWEN_V = 151936
_Q25 = dict(vocab_size=_QWEN_V, qkv_bias=True, rope_theta=1e6, param_dtype="bfloat16", compute_dtype="bfloat16")
_Q3 = dict(vocab_size=_QWEN_V, qk_norm=True, head_dim=128, num_layers=28, num_kv_heads=8, rope_theta=1e6,
           tie_word_embeddings=True, max_position_embeddings=40960, param_dtype="bfloat16",
           compute_dtype="bfloat16")
PRESETS: dict[str, ModelConfig] = {
    "qwen2.5-0.5b": ModelConfig(**_Q25, hidden_size=896, intermediate_size=4864, num_layers=24, num_heads=14,
                                num_kv_heads=2, head_dim=64, tie_word_embeddings=True),
    "qwen2.5-1.5b": ModelConfig(**_Q25, hidden_size=1536, intermediate_size=8960, num_layers=28, num_heads=12,
                                num_kv_heads=2, head_dim=128, tie_word_embeddings=True),
    "qwen2.5-7b": ModelConfig(**{**_Q25, "vocab_size": 152064}, hidden_size=3584, intermediate_size=18944,
                              num_layers=28, num_heads=28, num_kv_heads=4, head_dim=128,
                              max_position_embeddings=131072),
    "r1-distill-qwen-1.5b": ModelConfig(**{**_Q25, "rope_theta": 10000.0}, hidden_size=1536, intermediate_size=8960,
                                        num_layers=28, num_heads=12, num_kv_heads=2, head_dim=128,
                                        max_position_embeddings=131072),
    "qwen3-0.6b": ModelConfig(**_Q3, hidden_size=1024, intermediate_size=3072, num_heads=16),
    "qwen3-1.7b": ModelConfig(**_Q3, hidden_size=2048, intermediate_size=6144, num_heads=16),
    "qwen3-4b": ModelConfig(**{**_Q3, "num_layers": 36}, hidden_size=2560, intermediate_size=9728, num_heads=32),
    # CPU-sized, Qwen3-shaped, real vocabulary (the sampler benchmark's model).
    "tiny": ModelConfig(vocab_size=_QWEN_V, hidden_size=256, intermediate_size=768, num_layers=4, num_heads=4,
                        num_kv_heads=2, head_dim=64, qk_norm=True, tie_word_embeddings=True, rope_theta=1e6),
    # The embedded CPU run's policy (configs/tiny.py; its vocabulary comes from the tiny tokenizer).
    "micro": ModelConfig(vocab_size=512, hidden_size=128, intermediate_size=336, num_layers=2, num_heads=4,
                         num_kv_heads=2, head_dim=32, qk_norm=True, tie_word_embeddings=True, rope_theta=1e4),
}

# ---------------------------------------------------------------------------
# Layers


class LayerCache(NamedTuple):
    """Keys and values of one layer, [B, S, K, H] (stacked layers: [L, B, S, K, H])."""

    k: jax.Array
    v: jax.Array


class SlotCache(NamedTuple):
    """The rollout engine's decode cache of one layer, [B, S, K, H] (stacked: [L, B, S, K, H]), LayerCache's layout
    (a step writes one position's K x H values), read by rlve_jax/models/decode_attention.py only up to each row's
    live length."""

    k: jax.Array
    v: jax.Array


def _normal(rngs: nnx.Rngs, shape: tuple[int, ...], dtype) -> nnx.Param:
    return nnx.Param(0.02 * jax.random.normal(rngs.params(), shape, jnp.float32).astype(dtype))


class RMSNorm(nnx.Module):
    def __init__(self, dim: int, eps: float, dtype):
        self.scale = nnx.Param(jnp.ones((dim,), dtype))
        self.eps = eps

    def __call__(self, x: jax.Array) -> jax.Array:
        x32 = x.astype(jnp.float32)
        x32 = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + self.eps)
        return self.scale[...].astype(x.dtype) * x32.astype(x.dtype)


def rope(x: jax.Array, positions: jax.Array, theta: float) -> jax.Array:
    """Rotary embedding (rotate-half layout, as HF Qwen). x [B, T, N, H], positions [B, T]."""
    half = x.shape[-1] // 2
    inv_freq = 1.0 / theta ** (jnp.arange(0, half, dtype=jnp.float32) * 2.0 / x.shape[-1])  # [H/2]
    angles = positions.astype(jnp.float32)[..., None] * inv_freq  # [B, T, H/2]
    cos, sin = jnp.cos(angles)[:, :, None, :], jnp.sin(angles)[:, :, None, :]  # [B, T, 1, H/2]
    x1, x2 = jnp.split(x.astype(jnp.float32), 2, axis=-1)
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1).astype(x.dtype)


class Attention(nnx.Module):
    def __init__(self, cfg: ModelConfig, *, rngs: nnx.Rngs):
        D, N, K, H, pdt = cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, cfg.param_dtype
        self.cfg = cfg
        self.q_proj = _normal(rngs, (D, N, H), pdt)
        self.k_proj = _normal(rngs, (D, K, H), pdt)
        self.v_proj = _normal(rngs, (D, K, H), pdt)
        self.o_proj = _normal(rngs, (N, H, D), pdt)
        if cfg.qkv_bias:
            self.q_bias = nnx.Param(jnp.zeros((N, H), pdt))
            self.k_bias = nnx.Param(jnp.zeros((K, H), pdt))
            self.v_bias = nnx.Param(jnp.zeros((K, H), pdt))
        if cfg.o_bias:
            self.o_bias = nnx.Param(jnp.zeros((D,), pdt))
        if cfg.qk_norm:
            self.q_norm = RMSNorm(H, cfg.rms_norm_eps, pdt)
            self.k_norm = RMSNorm(H, cfg.rms_norm_eps, pdt)

    def _project(self, x: jax.Array, name: str) -> jax.Array:
        y = jnp.einsum("BTD,DNH->BTNH", x, getattr(self, f"{name}_proj")[...].astype(x.dtype))
        if self.cfg.qkv_bias:
            y = y + getattr(self, f"{name}_bias")[...].astype(x.dtype)
        if self.cfg.qk_norm and name != "v":
            y = getattr(self, f"{name}_norm")(y)
        return y

    def __call__(self, x: jax.Array, positions: jax.Array, kv_lengths: jax.Array,
                 cache: LayerCache | None, decode: bool) -> tuple[jax.Array, LayerCache | None]:
        """x [B, T, D]. Without `decode`, attention is causal over the T new tokens (which are
        also written to `cache` at their positions); with it, over the cache up to kv_lengths."""
        q = rope(self._project(x, "q"), positions, self.cfg.rope_theta)  # [B, T, N, H]
        k = rope(self._project(x, "k"), positions, self.cfg.rope_theta)  # [B, T, K, H]
        v = self._project(x, "v")  # [B, T, K, H]
        if isinstance(cache, SlotCache):
            return self._slot_decode(q, k, v, positions, kv_lengths, cache)
        if cache is not None:
            rows = jnp.arange(x.shape[0])[:, None]  # [B, 1]
            cache = LayerCache(cache.k.at[rows, positions].set(k.astype(cache.k.dtype), mode="drop"),
                               cache.v.at[rows, positions].set(v.astype(cache.v.dtype), mode="drop"))
        if decode:
            k, v = cache.k.astype(q.dtype), cache.v.astype(q.dtype)  # [B, S, K, H]
            out = jax.nn.dot_product_attention(q, k, v, key_value_seq_lengths=kv_lengths)  # [B, T, N, H]
        else:
            out = attention.attend(q, k, v, kv_lengths, causal=True, impl=self.cfg.attention_impl)  # [B, T, N, H]
        y = jnp.einsum("BTNH,NHD->BTD", out, self.o_proj[...].astype(x.dtype))
        if self.cfg.o_bias:
            y = y + self.o_bias[...].astype(x.dtype)
        return y, cache

    def _slot_decode(self, q, k, v, positions, kv_lengths, cache: SlotCache) -> tuple[jax.Array, SlotCache]:
        """The engine's decode step: q [B, 1, N, H], k/v [B, 1, K, H] written at positions [B, 1]; attention
        over each row's first kv_lengths [B] cached positions."""
        rows = jnp.arange(q.shape[0])  # [B]
        cache = SlotCache(cache.k.at[rows, positions[:, 0]].set(k[:, 0].astype(cache.k.dtype), mode="drop"),
                          cache.v.at[rows, positions[:, 0]].set(v[:, 0].astype(cache.v.dtype), mode="drop"))
        out = decode_attention.decode_attention(q[:, 0], cache.k.astype(q.dtype), cache.v.astype(q.dtype),
                                                kv_lengths, impl=self.cfg.decode_attention)[:, None]  # [B, 1, N, H]
        y = jnp.einsum("BTNH,NHD->BTD", out, self.o_proj[...].astype(q.dtype))
        if self.cfg.o_bias:
            y = y + self.o_bias[...].astype(q.dtype)
        return y, cache


class MLP(nnx.Module):
    def __init__(self, cfg: ModelConfig, *, rngs: nnx.Rngs):
        D, F, pdt = cfg.hidden_size, cfg.intermediate_size, cfg.param_dtype
        self.gate_proj = _normal(rngs, (D, F), pdt)
        self.up_proj = _normal(rngs, (D, F), pdt)
        self.down_proj = _normal(rngs, (F, D), pdt)

    def __call__(self, x: jax.Array) -> jax.Array:
        gate = jnp.einsum("BTD,DF->BTF", x, self.gate_proj[...].astype(x.dtype))
        up = jnp.einsum("BTD,DF->BTF", x, self.up_proj[...].astype(x.dtype))
        return jnp.einsum("BTF,FD->BTD", jax.nn.silu(gate) * up, self.down_proj[...].astype(x.dtype))


class Block(nnx.Module):
    """Pre-norm decoder layer: x + attn(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, cfg: ModelConfig, *, rngs: nnx.Rngs):
        self.input_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps, cfg.param_dtype)
        self.attn = Attention(cfg, rngs=rngs)
        self.post_attn_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps, cfg.param_dtype)
        self.mlp = MLP(cfg, rngs=rngs)

    def __call__(self, x, positions, kv_lengths, cache, decode):
        y, cache = self.attn(self.input_norm(x), positions, kv_lengths, cache, decode)
        x = x + y
        return x + self.mlp(self.post_attn_norm(x)), cache


# ---------------------------------------------------------------------------
# Model


class Transformer(nnx.Module):
    """Decoder-only LM. Sequences are left-aligned: right padding, positions 0, 1, ..."""

    def __init__(self, config: ModelConfig, *, rngs: nnx.Rngs):
        cfg = self.config = config
        self.embed = _normal(rngs, (cfg.vocab_size, cfg.hidden_size), cfg.param_dtype)  # [V, D]
        if cfg.scan_layers:  # one Block whose parameters have a leading [L] axis
            keys = jax.random.split(rngs.params(), cfg.num_layers)
            graphdef = nnx.graphdef(nnx.eval_shape(lambda: Block(cfg, rngs=nnx.Rngs(0))))
            self.layers = nnx.merge(graphdef, jax.vmap(lambda k: nnx.state(Block(cfg, rngs=nnx.Rngs(k))))(keys))
        else:
            self.layers = nnx.List([Block(cfg, rngs=rngs) for _ in range(cfg.num_layers)])
        self.final_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps, cfg.param_dtype)
        if not cfg.tie_word_embeddings:
            self.lm_head = _normal(rngs, (cfg.hidden_size, cfg.vocab_size), cfg.param_dtype)  # [D, V]

    def __call__(self, tokens: jax.Array, positions: jax.Array, mask: jax.Array) -> jax.Array:
        """tokens, positions, mask [B, T] -> f32 logits [B, T, V]."""
        return self.logits(self.hidden(tokens, positions, mask)[0])

    def hidden(self, tokens: jax.Array, positions: jax.Array, mask: jax.Array | None = None,
               cache: Any = None, decode: bool = False) -> tuple[jax.Array, Any]:
        """Final-normed hidden states [B, T, D] and the updated cache.

        Full sequence (training, prefill): causal attention, keys limited to mask.sum(-1).
        decode: the T (=1) new tokens attend to everything cached before them and themselves.
        """
        cdt = jnp.dtype(self.config.compute_dtype)
        x = attention.batch_sharded(jnp.take(self.embed[...], tokens, axis=0).astype(cdt))  # [B, T, D]
        if decode:
            kv_lengths = (positions[:, -1] + 1).astype(jnp.int32)  # [B]
        else:
            kv_lengths = jnp.sum(mask, axis=-1, dtype=jnp.int32) if mask is not None else None
        x, cache = self._layers(x, positions, kv_lengths, cache, decode)
        return self.final_norm(x), cache

    def _layers(self, x, positions, kv_lengths, cache, decode):
        def apply(layer_state, x, layer_cache):
            block = nnx.merge(graphdef, layer_state)
            return block(x, positions, kv_lengths, layer_cache, decode)

        if self.config.remat:
            apply = jax.checkpoint(apply)
        if self.config.scan_layers:
            graphdef, state = nnx.split(self.layers)
            return jax.lax.scan(lambda h, xs: apply(xs[0], h, xs[1]), x, (state, cache))
        graphdef = nnx.graphdef(self.layers[0])
        new_cache = []
        for i, layer in enumerate(self.layers):
            x, layer_cache = apply(nnx.state(layer), x, None if cache is None else cache[i])
            new_cache.append(layer_cache)
        return x, None if cache is None else new_cache

    def logits(self, h: jax.Array) -> jax.Array:
        """[..., D] -> f32 logits [..., V] (f32 accumulation)."""
        if self.config.tie_word_embeddings:
            return jnp.einsum("...D,VD->...V", h, self.embed[...].astype(h.dtype), preferred_element_type=jnp.float32)
        return jnp.einsum("...D,DV->...V", h, self.lm_head[...].astype(h.dtype), preferred_element_type=jnp.float32)

    def init_cache(self, batch: int, length: int, dtype=None) -> Any:
        """Zeroed KV cache: a list of LayerCache [B, S, K, H], or one stacked [L, ...] when scanning."""
        cfg = self.config
        shape = (batch, length, cfg.num_kv_heads, cfg.head_dim)
        if cfg.scan_layers:
            shape = (cfg.num_layers, *shape)
        dtype = dtype or cfg.compute_dtype
        make = lambda: LayerCache(jnp.zeros(shape, dtype), jnp.zeros(shape, dtype))  # noqa: E731
        return make() if cfg.scan_layers else [make() for _ in range(cfg.num_layers)]


def token_logprobs(model: Transformer, tokens: jax.Array, positions: jax.Array, mask: jax.Array,
                   temperature: float | jax.Array = 1.0, chunk_size: int | None = None) -> jax.Array:
    """log softmax(logits / temperature) of the next token, f32 [B, T].

    Entry t is log p(tokens[t+1] | tokens[:t+1]); it is 0 where mask[t] or mask[t+1] is False
    and in the last column. Logits exist for one chunk of the sequence at a time (also in the
    backward pass, which recomputes them), never for all T positions.
    """
    h, _ = model.hidden(tokens, positions, mask)  # [B, T, D]
    B, T, D = h.shape
    C = min(chunk_size or model.config.logits_chunk, T)
    n = -(-T // C)
    targets = jnp.pad(tokens[:, 1:], ((0, 0), (0, n * C - T + 1)))  # [B, n*C]
    h = jnp.pad(h, ((0, 0), (0, n * C - T), (0, 0)))
    inv_t = 1.0 / jnp.asarray(temperature, jnp.float32)

    @jax.checkpoint
    def chunk(args):
        hc, tc = args  # [B, C, D], [B, C]
        logp = jax.nn.log_softmax(model.logits(hc) * inv_t, axis=-1)  # [B, C, V]
        return jnp.take_along_axis(logp, tc[..., None], axis=-1)[..., 0]

    out = jax.lax.map(chunk, (h.reshape(B, n, C, D).swapaxes(0, 1), targets.reshape(B, n, C).swapaxes(0, 1)))
    out = out.swapaxes(0, 1).reshape(B, n * C)[:, :T]  # [B, T]
    valid = mask & jnp.pad(mask[:, 1:], ((0, 0), (0, 1)))
    return jnp.where(valid, out, 0.0)
