"""TPU v5e slices (v5litepod-8 ... -256; 16 GB HBM per chip, 4 or 8 chips per host), every host runs
the same command (README "Scaling out"): --config=configs/mesh/tpu_v5e.py:c256

Training shards everything over all chips (fsdp); each host's sampler holds a copy of the weights split
over `mesh.sampler_tensor` chips, chosen so that each chip holds one KV head of its slots' cache: 2 for the
1.5B models (2 KV heads), 4 for c256_qwen2.5_7b (4 KV heads; a 7B bf16 copy is 15 GB, a chip has 16 GB).
A split that does not divide the KV heads replicates the cache over it (Qwen2.5-1.5B on 4 chips: each chip
holds its slots' both heads), and the engine sizes its slots for what a chip really holds. The planner's
engine for c256 on a v5e 2x2 host (libtpu compile, training state resident) holds 48 slots at 9.2 GB of cache
per chip with 2, 36 slots at 6.9 GB beside a whole copy of the weights with 1.
Processes are found from the TPU VM metadata.
train.micro_batch_size must be a multiple of the chip count (pass it for slices above 16 chips).
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, -1, 1
    config.mesh.sampler_tensor = 4 if name == "c256_qwen2.5_7b" else 2
    config.distributed.num_processes = 0
    config.xla_flags = ""  # the GPU compiler flags have no use here
    return config
