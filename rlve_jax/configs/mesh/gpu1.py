"""1×GPU (e.g. one H100 80 GB): python -m rlve_jax.main --config=configs/mesh/gpu1.py:c256 --config.model.path=DIR

Trainer and sampler share the one device; a 1.5B model fits (bf16 weights 3 GB, Adam moments 6 GB,
rematerialised activations); larger ones need more GPUs (gpu8.py).
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "c256"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, 1, 1
    config.mesh.device_memory_gb = 80  # an H100/A100 80 GB; the planner and the start-up check hold to it
    return config
