"""rlve_jax: RLVE (reinforcement learning with adaptive verifiable environments) in JAX.

Importing the package is cheap and JAX-free, so environment worker processes stay light.
"""

__version__ = "0.1.0"
