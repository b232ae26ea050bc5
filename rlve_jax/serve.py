"""`python -m rlve_jax.serve`: the adaptive gym as an HTTP service (rlve_jax/gym/serve.py). JAX-free."""

from rlve_jax.gym.serve import main

if __name__ == "__main__":
    main()
