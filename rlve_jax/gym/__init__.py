"""The gym, JAX-free: environments, their registry and catalog, the process pool, the schedulers (curricula),
prompt formats, and adapters for other trainers (TRL, verl). `pip install rlve_jax` installs this alone."""
