"""Where a job runs and what it leaves: meshes and partition rules, processes, checkpoints, metrics."""
