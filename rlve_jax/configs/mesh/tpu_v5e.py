"""TPU v5e slices (v5litepod-8 ... -256; 16 GB HBM per chip, 4 or 8 chips per host), every host runs
the same command (README "Scaling out"): --config=configs/mesh/tpu_v5e.py:c256

Training shards everything over all chips (fsdp); each host's sampler splits a copy of the weights
over 4 of its chips (a 7B bf16 copy is 15 GB, a chip has 16 GB; for 1.5B models
--config.mesh.sampler_tensor=1 decodes faster). Processes are found from the TPU VM metadata.
train.micro_batch_size must be a multiple of the chip count (pass it for slices above 16 chips).
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, -1, 1
    config.mesh.sampler_tensor = 4
    config.distributed.num_processes = 0
    config.xla_flags = ""  # the GPU compiler flags have no use here
    config.rollout.partial_rollouts = False  # several processes: partial rollouts run on one process only
    return config
