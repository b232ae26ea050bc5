"""Learning from rollouts: collection with dynamic sampling, the named algorithm parts (docs/algorithms.md),
micro-batching, the update."""
