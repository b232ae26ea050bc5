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
    layer = f"{slots // fsdp},{cfg.num_kv_heads // tensor},{eng.slot_length},{cfg.head_dim}"  # one layer's shard
    assert layer not in returned("copy"), returned("copy")
    print(f"decode segment on v5e, mesh {dict(mesh.shape)}: {compiled.memory_analysis().temp_size_in_bytes / 1e6:.2f} "
          "MB temporaries per chip")
