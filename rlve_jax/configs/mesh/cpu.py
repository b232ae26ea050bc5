"""1×CPU: python -m rlve_jax.main --config=configs/mesh/cpu.py:c1 --config.model.path=DIR

Every host device (one unless XLA_FLAGS forces more), float32 weights and compute (CPUs have no
fast bfloat16 matmul), no rematerialisation (memory is not the limit), no GPU compiler flags.
"""

from rlve_jax.defaults import experiment


def get_config(name: str = "tiny"):
    config = experiment(name)
    config.mesh.data, config.mesh.fsdp, config.mesh.tensor = 1, -1, 1
    config.model.dtype = "float32"
    config.model.remat = False
    config.xla_flags = ""
    return config
