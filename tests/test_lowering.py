"""Cross-lowering on a CPU host: the real train step, the engine's prefill and decode segment and the static
sampler's chunk, exported (jax.export) for `cuda` and `tpu` with the gpu8 / tpu_v5e / tpu_v5p presets'
shardings on abstract meshes of their device counts, at the presets' c256 model shape (sequence lengths
cut to keep the CI's CPU time small: the shapes and shardings of every array but the length are the
presets'). A lowering failure on any platform fails here.

What cannot lower on a CPU host: cuDNN attention (attention_impl="cudnn") checks the cuDNN version of a
local GPU while tracing; experiments/gpu_e2e.sh covers it on a GPU.
"""

import dataclasses
import re

import jax
import pytest
from jax.sharding import AbstractMesh, AxisType

from rlve_jax import plan
from rlve_jax.defaults import CONFIGS, load_config_file
from rlve_jax.generation import engine, sampler
from rlve_jax.models import lora
from rlve_jax.runtime import memory, sharding

# preset -> (platform, devices, devices per process, the attention implementations that lower there,
# the engine's decode attention there)
PRESETS = {
    "gpu8.py": ("cuda", 8, 8, ("blockwise", "reference"), "pallas_gpu"),
    "tpu_v5e.py": ("tpu", 16, 4, ("blockwise", "reference", "pallas_tpu"), "pallas_tpu"),
    "tpu_v5p.py": ("tpu", 8, 4, ("blockwise", "reference", "pallas_tpu"), "pallas_tpu"),
}
# Kernels are custom calls, which jax.export refuses unless named.
KERNEL_CALLS = [jax.export.DisabledSafetyCheck.custom_call(name) for name in
                ("__gpu$xla.gpu.triton", "triton_kernel_call", "tpu_custom_call")]


def preset(name: str, **overrides):
    """The preset's c256 config with shorter sequences (overrides: dotted keys)."""
    config = load_config_file(CONFIGS / "mesh" / name, "c256")
    config.rollout.max_prompt_tokens, config.rollout.max_response_tokens = 256, 768
    config.train.max_tokens_per_micro_batch = 0
    config.train.micro_batch_size = PRESETS[name][1]
    for key, value in overrides.items():
        section, field = key.split(".")
        setattr(config[section], field, value)
    return config


def meshes(config, devices: int, per_process: int) -> tuple[AbstractMesh, AbstractMesh]:
    """(training mesh, one process's sampler mesh) as abstract meshes of the preset's shape."""
    axes = [config.mesh.data, config.mesh.fsdp, config.mesh.tensor]
    if -1 in axes:
        axes[axes.index(-1)] = -devices // (axes[0] * axes[1] * axes[2])
    auto = (AxisType.Auto,) * 3
    tensor = config.mesh.sampler_tensor or config.mesh.tensor
    return (AbstractMesh(tuple(axes), sharding.AXES, axis_types=auto),
            AbstractMesh((1, per_process // tensor, tensor), sharding.AXES, axis_types=auto))


def sdy(spec, ndim: int) -> str:
    """A PartitionSpec as the exported module writes it (sdy.sharding's dimension list)."""
    dims = [*spec] + [None] * (ndim - len(spec))
    names = lambda d: ", ".join(f'"{a}"' for a in ((d,) if isinstance(d, str) else d or ()))  # noqa: E731
    return "[" + ", ".join("{" + names(d) + "}" for d in dims) + "]"


def export(fn, args, kwargs, platform: str) -> jax.export.Exported:
    return jax.export.export(fn, platforms=[platform], disabled_checks=KERNEL_CALLS)(*args, **kwargs)


def arg_shardings(exported: jax.export.Exported) -> list[str]:
    """The sdy.sharding of each argument of the exported main function, as text."""
    text = exported.mlir_module()
    header = next(line for line in text.splitlines() if "func.func public @main" in line)
    args = re.split(r"%arg\d+: ", header.split("->")[0])[1:]
    return [next(iter(re.findall(r"sdy\.sharding<@mesh, (\[.*?\])>", arg)), "") for arg in args]


@pytest.mark.parametrize("name", PRESETS)
def test_train_step_lowers_for_the_presets_platform(name):
    platform, devices, per_process, impls, _ = PRESETS[name]
    for impl in impls:
        config = preset(name, **{"model.attention_impl": impl})
        cfg = plan.model_config_for(config)[0]
        mesh, _ = meshes(config, devices, per_process)
        step = plan.train_step(config, cfg, mesh)
        with plan.mesh_context(mesh):
            accumulate = export(step.accumulate, (step.params, step.acc, step.micro), {}, platform)
        apply = export(step.apply, (step.params, step.opt_state, step.acc), {}, platform)
        assert accumulate.nr_devices == apply.nr_devices == devices, impl
        assert accumulate.in_avals[-6].shape == step.micro.tokens.shape  # the micro-batch's tokens
        shardings = arg_shardings(accumulate)
        assert shardings[-6:] == [sdy(x.sharding.spec, x.ndim) for x in step.micro], impl  # rows over data x fsdp
        assert any('"fsdp"' in s for s in shardings[:len(jax.tree.leaves(step.params))]), impl  # ZeRO-3 weights
        kernels = "tpu_custom_call" in accumulate.mlir_module()
        assert kernels == (impl == "pallas_tpu"), impl  # splash is a Mosaic kernel call


def sampler_side(name: str, **overrides):
    """A preset's model config, abstract sampler-mesh parameters and engine (64 K-token budget) for exports."""
    platform, devices, per_process, _, decode_impl = PRESETS[name]
    config = preset(name, **overrides)
    cfg = dataclasses.replace(plan.model_config_for(config)[0], decode_attention=decode_impl)
    _, sampler_mesh = meshes(config, devices, per_process)
    graphdef, shapes, _ = lora.abstract_model(cfg)
    params = memory.abstract(shapes, sharding.state_shardings(shapes, sampler_mesh, fsdp=False))
    r = config.rollout
    eng = engine.Engine(cfg, max_prompt_tokens=r.max_prompt_tokens, max_new_tokens=r.max_response_tokens,
                        budget_tokens=64 * 1024, segment_steps=r.segment_steps, mesh=sampler_mesh)
    return platform, per_process, decode_impl, r, cfg, sampler_mesh, graphdef, params, eng


@pytest.mark.parametrize("name", PRESETS)
def test_engine_and_static_sampler_lower_for_the_presets_platform(name):
    platform, per_process, decode_impl, r, cfg, sampler_mesh, graphdef, params, eng = sampler_side(name)
    slots = eng.slots_for_rows(r.oversample_prompts * r.samples_per_prompt)
    segment = export(*eng.segment_call(graphdef, params, slots), platform)
    prefixes, length = eng.largest_prefill(slots, r.samples_per_prompt)
    prefill = export(*eng.prefill_call(graphdef, params, prefixes, length), platform)
    chunk = export(*sampler.chunk_call(graphdef, params, prompts=2, prompt_length=r.max_prompt_tokens,
                                       group=r.samples_per_prompt, max_new_tokens=r.max_response_tokens,
                                       mesh=sampler_mesh), platform)
    for exported in (segment, prefill, chunk):
        assert exported.nr_devices == per_process and exported.platforms == (platform,)
    n_params = len(jax.tree.leaves(params))
    state = eng.abstract_state(slots)
    cache = jax.tree.leaves(state.cache)
    assert [a.shape for a in segment.in_avals[n_params:n_params + len(cache)]] == [c.shape for c in cache]
    cache_shardings = arg_shardings(segment)[n_params:n_params + len(cache)]
    assert cache_shardings == [sdy(c.sharding.spec, len(c.shape)) for c in cache]  # slots over data x fsdp,
    tensor = sampler_mesh.shape["tensor"]
    assert '{"data", "fsdp"}' in cache_shardings[0]
    # KV heads over tensor where it divides them (where it does not, every chip of a tensor group holds all heads)
    assert ('"tensor"' in cache_shardings[0]) == (cfg.num_kv_heads % tensor == 0), cache_shardings
    kernel = {"pallas_gpu": "triton", "pallas_tpu": "tpu_custom_call"}[decode_impl]
    assert kernel in segment.mlir_module()  # the Pallas decode kernel, not the pure-JAX loop,
    assert "sdy.manual_computation" in segment.mlir_module()  # on each device's shard of the cache


def test_cudnn_attention_cannot_lower_on_a_cpu_host():
    """Documented gap: cuDNN attention needs a local GPU to trace (experiments/gpu_e2e.sh runs it)."""
    config = preset("gpu8.py", **{"model.attention_impl": "cudnn"})
    cfg = plan.model_config_for(config)[0]
    mesh, _ = meshes(config, 8, 8)
    with pytest.raises(ValueError, match="attention_impl='cudnn' needs a GPU backend"), plan.mesh_context(mesh):
        step = plan.train_step(config, cfg, mesh)
        export(step.accumulate, (step.params, step.acc, step.micro), {}, "cuda")


@pytest.mark.parametrize("name", ["tpu_v5e.py", "tpu_v5p.py"])
def test_prefills_lower_with_splash_attention_on_each_chips_shard(name):
    """`attention_impl=auto` is splash (a Mosaic kernel) on TPU, and Mosaic kernels cannot be partitioned
    automatically: the engine's prefill and the static sampler's chunk run it per shard of the sampler mesh."""
    splash = {"model.attention_impl": "pallas_tpu"}
    platform, _, _, r, _, sampler_mesh, graphdef, params, eng = sampler_side(name, **splash)
    prefill = export(*eng.prefill_call(graphdef, params, *eng.largest_prefill(16, r.samples_per_prompt)), platform)
    chunk = export(*sampler.chunk_call(graphdef, params, prompts=2, prompt_length=r.max_prompt_tokens,
                                       group=r.samples_per_prompt, max_new_tokens=r.max_response_tokens,
                                       mesh=sampler_mesh), platform)
    for exported in (prefill, chunk):
        text = exported.mlir_module()
        assert "tpu_custom_call" in text and "sdy.manual_computation" in text
