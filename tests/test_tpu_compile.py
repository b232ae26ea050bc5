"""TPU plans compiled on a CPU host: libtpu's compiler builds the train step and the engine's prefill and
decode segment for a named TPU slice (jax.experimental.topologies, MaxText's train_compile.py pattern) and
the plan reads the compiled memory per chip. A small slice (v5e 2x2) and the micro model keep it short;
`python -m rlve_jax.plan --config=configs/mesh/tpu_v5e.py:c256 --topology=v5e:16x16` is the full size
(the command line adds only the flag and JAX_PLATFORMS=cpu to what this test runs)."""

import dataclasses
import re

import numpy as np
from jax.sharding import AxisType, Mesh

from rlve_jax import plan
from rlve_jax.generation import engine
from rlve_jax.models import decode_attention
from rlve_jax.models.model import ModelConfig
from rlve_jax.runtime import sharding
from test_plan import tiny_config


def test_the_tiny_plan_compiles_for_a_v5e_slice():
    devices = plan.tpu_topology("v5e:2x2")
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
    print(result.table())



def test_the_engines_decode_segment_compiles_with_the_paged_tpu_kernel_on_each_chips_shard():
    """libtpu compiles the decode segment with decode attention "pallas_tpu" (head_dim 128) for a v5e 2x2 slice,
    slots over 2 chips and KV heads over 2: one kernel call per layer, and no chip gathers the slot cache."""
    devices = plan.tpu_topology("v5e:2x2")
    mesh = Mesh(np.array(devices).reshape(1, 2, 2), sharding.AXES, axis_types=(AxisType.Auto,) * 3)
    cfg = ModelConfig.preset("micro", head_dim=128, param_dtype="bfloat16", compute_dtype="bfloat16")
    cfg = dataclasses.replace(cfg, decode_attention=decode_attention.default_impl(cfg.head_dim, 1, "tpu"))
    assert cfg.decode_attention == "pallas_tpu"
    graphdef, shapes, _ = plan._abstract_model(cfg)
    params = plan._abstract(shapes, sharding.state_shardings(shapes, mesh, fsdp=False))
    eng = engine.Engine(cfg, max_prompt_tokens=256, max_new_tokens=768, budget_tokens=16 * 1024, segment_steps=4,
                        mesh=mesh)
    fn, args, kwargs = eng.segment_call(graphdef, params, eng.slots_for_rows(16))
    compiled = fn.lower(*args, **kwargs).compile()
    text = compiled.as_text()
    assert text.count('custom_call_target="tpu_custom_call"') == cfg.num_layers
    gathered = re.findall(r"= \w+\[([\d,]*)\]\S* all-gather\(", text)  # the shapes every all-gather returns
    assert gathered and not [shape for shape in gathered if str(eng.slot_length) in shape.split(",")], gathered
    print(f"decode segment on v5e: {compiled.memory_analysis().temp_size_in_bytes / 1e6:.2f} MB temporaries per chip")
