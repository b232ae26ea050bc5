"""TPU plans compiled on a CPU host: libtpu's compiler builds the train step and the engine's prefill and
decode segment for a named TPU slice (jax.experimental.topologies, MaxText's train_compile.py pattern) and
the plan reads the compiled memory per chip. A small slice (v5e 2x2) and the micro model keep it short;
`python -m rlve_jax.plan --config=configs/mesh/tpu_v5e.py:c256 --topology=v5e:16x16` is the full size
(the command line adds only the flag and JAX_PLATFORMS=cpu to what this test runs)."""

from rlve_jax import plan
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

