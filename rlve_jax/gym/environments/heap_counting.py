"""HeapCounting: permutations of 1..N with P[i] > P[i // 2] (a min-heap), modulo a small prime."""

from math import factorial, prod

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


def count_heaps(n: int) -> int:
    """N! / prod of subtree sizes (the hook length formula for the heap-shaped tree)."""
    sizes = [0] * (n + 2)
    for i in range(n, 0, -1):
        sizes[i] = 1 + (sizes[2 * i] if 2 * i <= n else 0) + (sizes[2 * i + 1] if 2 * i + 1 <= n else 0)
    return factorial(n) // prod(sizes[1:n + 1])


def primes_up_to(limit: int) -> list[int]:
    return [p for p in range(2, limit + 1) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


class HeapCounting(ModCountingEnvironment):
    name = "HeapCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        mod = rng.choice(primes_up_to(5 * n))
        return {"N": n, "MOD": mod, "gold": count_heaps(n) % mod}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Count the permutations P[1], P[2], ..., P[{n}] of the integers 1 to {n} such that "
            f"P[i] > P[floor(i / 2)] for every 2 <= i <= {n}.\n\n" + mod_output_format(data["MOD"])
        )
