"""TPU v5p slices (v5p-8 ... ; 95 GB HBM per chip, 4 chips per host), every host runs the same
command (README "Scaling out"): --config=configs/mesh/tpu_v5p.py:c256

Training shards everything over all chips (fsdp); each chip's sampler holds a full copy of the
weights (room for 7B models and their KV caches). Processes are found from the TPU VM metadata.
train.micro_batch_size must be a multiple of the chip count (pass it for slices above 16 chips).
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, -1, 1
    config.distributed.num_processes = 0
    config.xla_flags = ""  # the GPU compiler flags have no use here
    return config
