"""Several nodes of 8 GPUs under SLURM (README "Scaling out"): srun ... python -m rlve_jax.main
--config=configs/mesh/gpu_nodes.py:c256 ...

Hybrid sharding: fsdp 8 inside each node (weight all-gathers on NVLink), data parallel across nodes
(only the gradient all-reduce crosses InfiniBand). Process count, index and coordinator come from
SLURM's environment. train.micro_batch_size must be a multiple of the GPU count (16 fits 2 nodes).
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = -1, 8, 1
    config.mesh.device_memory_gb = 80  # an H100/A100 80 GB; the planner and the start-up check hold to it
    config.distributed.num_processes = 0
    return config
