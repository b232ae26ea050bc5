"""Sampling responses: the static sampler, the continuous-batching engine, and rollouts over the pool."""
