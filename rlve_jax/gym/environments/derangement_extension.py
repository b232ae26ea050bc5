"""DerangementExtension: permutations of 1..N with exactly M fixed points, modulo a prime."""

from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, mod_output_format

MODULI = (666623333, 998244353, 1000000007)


def derangements(n: int) -> int:
    previous, current = 1, 0  # D(0), D(1)
    if n == 0:
        return 1
    for i in range(2, n + 1):
        previous, current = current, (i - 1) * (previous + current)
    return current


class DerangementExtension(ModCountingEnvironment):
    name = "DerangementExtension"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        m = rng.randint(0, n)
        mod = rng.choice(MODULI)
        return {"N": n, "M": m, "MOD": mod, "gold": comb(n, m) * derangements(n - m) % mod}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"Count the permutations p[1..{n}] of the integers 1 to {n} that have exactly {m} fixed points "
            "(positions i with p[i] = i).\n\n" + mod_output_format(data["MOD"])
        )
