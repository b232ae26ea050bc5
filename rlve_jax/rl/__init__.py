"""Learning from rollouts: collection with dynamic sampling, the DAPO loss, micro-batching, the update."""
