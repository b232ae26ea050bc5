"""One node of 8 GPUs, fsdp 4 × tensor 2: python -m rlve_jax.main --config=configs/mesh/gpu8_tp2.py:c256_qwen2.5_7b ...

For larger models with long responses: tensor parallelism splits each layer's heads and MLP (and so
the activations of the backward pass) over GPU pairs, fsdp shards the rest 4 ways. The sampler still
keeps one full copy per GPU (sampler_tensor 1: no per-token collectives while decoding); set
--config.mesh.sampler_tensor=2 when the KV cache needs the room.
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256_qwen2.5_7b"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, 4, 2
    config.mesh.device_memory_gb = 80  # an H100/A100 80 GB; the planner and the start-up check hold to it
    config.mesh.sampler_tensor = 1
    return config
