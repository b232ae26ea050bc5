"""One node of 8 GPUs (the paper's 8×H100): python -m rlve_jax.main --config=configs/mesh/gpu8.py:c256 ...

Training shards weights, gradients and Adam moments over the 8 GPUs (fsdp 8, ZeRO-3; its all-gathers
stay on NVLink); the sampler keeps a full copy on every GPU and splits the prompts 8 ways, which
decodes fastest while a copy fits (bf16: 3 GB for 1.5B, 15 GB for 7B). time/reshard logs the
gather between the two layouts every step.
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, 8, 1
    config.mesh.device_memory_gb = 80  # an H100/A100 80 GB; the planner and the start-up check hold to it
    return config
