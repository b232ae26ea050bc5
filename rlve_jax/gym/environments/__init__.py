"""The gym: one module per environment, registered by its exact original identifier.

Any `rlve_jax.gym.env.Environment` subclass with a `name` defined in a module here is
picked up by `rlve_jax.gym.registry`; modules whose names start with `_` hold shared helpers.
"""
