"""CatalanNumberMod: permutations of 1..2N with sorted odd and even positions and A[2i-1] < A[2i]."""

from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


class CatalanNumberMod(ModCountingEnvironment):
    name = "CatalanNumberMod"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(2, params["MAX_N"])
        mod = rng.randint(2, 10 ** 9)
        return {"N": n, "MOD": mod, "gold": comb(2 * n, n) // (n + 1) % mod}  # the N-th Catalan number

    def prompt(self, data):
        n = data["N"]
        return (
            f"Count the permutations A[1], A[2], ..., A[{2 * n}] of the integers 1 to {2 * n} such that:\n"
            f"- the odd positions are increasing: A[1] < A[3] < ... < A[{2 * n - 1}];\n"
            f"- the even positions are increasing: A[2] < A[4] < ... < A[{2 * n}];\n"
            f"- A[2i-1] < A[2i] for every 1 <= i <= {n}.\n\n" + mod_output_format(data["MOD"])
        )
