"""TPU plans compiled on a CPU host: libtpu's compiler builds the train step and the engine's prefill and
decode segment for a named TPU slice (jax.experimental.topologies, MaxText's train_compile.py pattern) and
the plan reads the compiled memory per chip. A small slice (v5e 2x2) and the micro model keep it short;
`python -m rlve_jax.plan --config=configs/mesh/tpu_v5e.py:c256 --topology=v5e:2x2` is the full model on a
one-host slice (the command line adds only the flag and JAX_PLATFORMS=cpu to what this test runs). On v5e:4x4
and v5e:16x16, libtpu 0.0.42's compile-only client fails the sampler's one-host program (a RET_CHECK on its
device assignment; v5e:2x4 and v5p:2x2x2 compile it): the planner cannot size those slices' sampler yet."""

import dataclasses
import re

import numpy as np
import pytest
from jax.sharding import AxisType, Mesh

from rlve_jax import plan
from rlve_jax.generation import engine
from rlve_jax.models import decode_attention, lora
from rlve_jax.models.model import ModelConfig
from rlve_jax.runtime import memory, sharding
from test_plan import tiny_config


def test_the_tiny_plan_compiles_for_a_v5e_slice():
    devices = memory.tpu_topology("v5e:2x2")
    assert len(devices) == 4 and devices[0].device_kind == "TPU v5 lite"
    config = tiny_config("tpu_v5e.py", **{"mesh.sampler_tensor": 1, "train.micro_batch_size": 64})
    result = plan.plan(config, devices=devices)
    parts = {(phase, what): size for phase, what, size, _ in result.parts}
    assert result.limit == 16e9 and result.over() is None  # 16 GB of HBM per v5e chip
    assert parts[("train", "activations + temporaries")] > 0
    assert parts[("rollout", "prefill batch (KV + logits)")] > 0
    assert parts[("rollout", "decode temporaries")] > 0  # compiled by libtpu: not the CPU estimate
    assert parts[("baseline", "process baseline")] == 0  # no process runs on the slice
    assert "4 x tpu (TPU v5 lite) devices" in result.table()
    assert "attention pallas_tpu" in result.table()  # attention_impl "auto" is the slice's splash, not this host's
    print(result.table())



@pytest.mark.parametrize("fsdp, tensor", [(2, 2), (4, 1)])
def test_the_engines_decode_segment_compiles_with_the_paged_tpu_kernel_on_each_chips_shard(fsdp, tensor):
    """libtpu compiles the decode segment with decode attention "pallas_tpu" (head_dim 128, 2 KV heads) for a v5e
    2x2 slice, slots over `fsdp` chips and KV heads over `tensor`: one kernel call per step, no chip gathers the
    slot cache, and no layer's cache is copied per step (with 2 KV heads per chip XLA keeps the cache tiled
    over (KV head, head dim) in the loop: the kernel's view must be that layout's own)."""
    devices = memory.tpu_topology("v5e:2x2")
    mesh = Mesh(np.array(devices).reshape(1, fsdp, tensor), sharding.AXES, axis_types=(AxisType.Auto,) * 3)
    cfg = ModelConfig.preset("micro", head_dim=128, param_dtype="bfloat16", compute_dtype="bfloat16",
                             scan_layers=True)
    cfg = dataclasses.replace(cfg, decode_attention=decode_attention.default_impl(cfg.head_dim, "tpu"))
    assert cfg.decode_attention == "pallas_tpu"
    graphdef, shapes, _ = lora.abstract_model(cfg)
    params = memory.abstract(shapes, sharding.state_shardings(shapes, mesh, fsdp=False))
    eng = engine.Engine(cfg, max_prompt_tokens=256, max_new_tokens=768, budget_tokens=16 * 1024, segment_steps=4,
                        mesh=mesh)
    slots = eng.slots_for_rows(16)
    fn, args, kwargs = eng.segment_call(graphdef, params, slots)
    compiled = fn.lower(*args, **kwargs).compile()
    text = compiled.as_text()
    assert text.count('custom_call_target="tpu_custom_call"') == 1  # in the scan over layers
    returned = lambda op: re.findall(rf"= \w+\[([\d,]*)\]\S* {op}\(", text)  # noqa: E731 (result shapes)
    assert not [shape for shape in returned("all-gather") if str(eng.slot_length) in shape.split(",")]
    layer = f"{slots // fsdp},{eng.slot_length},{cfg.num_kv_heads // tensor},{cfg.head_dim}"  # one layer's shard
    assert layer not in returned("copy"), returned("copy")
    print(f"decode segment on v5e, mesh {dict(mesh.shape)}: {compiled.memory_analysis().temp_size_in_bytes / 1e6:.2f} "
          "MB temporaries per chip")


@pytest.mark.parametrize("preset, experiment, topology, model", [
    ("tpu_v5e.py", "c256", "v5e:2x2", "r1-distill-qwen-1.5b"),  # 2 KV heads: 1 per chip (sampler_tensor 2)
    ("tpu_v5e.py", "c256", "v5e:2x2", "r1-distill-qwen-1.5b:1"),  # sampler_tensor 1: 2 KV heads per chip
    ("tpu_v5p.py", "c256_qwen2.5_7b", "v5p:2x2x1", "qwen2.5-7b"),  # 4 KV heads per chip
])
def test_the_slot_cache_crosses_a_decode_segment_without_a_copy(preset, experiment, topology, model):
    """The engine's decode segment at the presets' shapes (64 slots of 26,624 or 10,240 positions, their KV heads
    per chip), compiled by libtpu: no copy of the stacked cache or of a layer's, however many KV heads a chip
    holds, and temporaries of a few layers' cache (the layer the scan is in), not the whole cache's copies (a
    [B, K, S, H] layout: the 7B's 9.9 GB of temporaries beside a 9.4 GB cache, four copies of the stacked cache;
    the 1.5B's with 2 KV heads per chip, 26.3 GB, refused)."""
    from rlve_jax.defaults import CONFIGS, load_config_file, settings

    name, _, tensor = model.partition(":")
    config = load_config_file(CONFIGS / "mesh" / preset, experiment)
    if tensor:
        config.mesh.sampler_tensor = int(tensor)
    _, sampler_mesh = sharding.meshes(settings(config).mesh, memory.tpu_topology(topology))
    cfg = dataclasses.replace(ModelConfig.preset(name, param_dtype="bfloat16", compute_dtype="bfloat16",
                                                 scan_layers=True), decode_attention="pallas_tpu")
    graphdef, shapes, _ = lora.abstract_model(cfg)
    params = memory.abstract(shapes, sharding.state_shardings(shapes, sampler_mesh, fsdp=False))
    r = config.rollout
    eng = engine.Engine(cfg, max_prompt_tokens=r.max_prompt_tokens, max_new_tokens=r.max_response_tokens,
                        budget_tokens=65 * engine.slot_length(r.max_prompt_tokens, r.max_response_tokens),
                        segment_steps=r.segment_steps, mesh=sampler_mesh)
    fn, args, kwargs = eng.segment_call(graphdef, params, eng.slots)
    compiled = fn.lower(*args, **kwargs).compile()
    copies = re.findall(r"= \w+\[([\d,]*)\]\S* copy\(", compiled.as_text())
    cache = memory.per_device_bytes(eng.abstract_state(eng.slots).cache)
    temp = compiled.memory_analysis().temp_size_in_bytes
    heads = engine.kv_heads_per_device(cfg, sampler_mesh)
    print(f"{experiment} on {topology}, {heads} KV heads per chip: {eng.slots} slots, cache {cache / 1e9:.2f} GB per "
          f"chip, temporaries {temp / 1e9:.3f} GB, copies {copies}")
    assert not [shape for shape in copies if str(eng.slot_length) in shape.split(",")]
    assert temp < cache / 4
