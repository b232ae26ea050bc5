"""SameAdjacencyCounting: length-N sequences over 1..M with at least one pair of equal neighbours."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow


class SameAdjacencyCounting(ModCountingEnvironment):
    name = "SameAdjacencyCounting"

    def levels(self, difficulty):
        return [{"MAX_N": grow(7, lambda x: int(1.5 * x + 1), difficulty),
                 "MAX_M": grow(2, lambda x: int(1.5 * x + 1), difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N"]), rng.randint(2, params["MAX_M"])
        mod = rng.randint(m, 2 * m)
        # all sequences minus those whose neighbours always differ
        return {"N": n, "M": m, "mod": mod, "gold": (pow(m, n, mod) - m * pow(m - 1, n - 1, mod)) % mod}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"How many sequences of length {n} whose entries are integers from 1 to {m} contain at least one pair of "
            f"adjacent equal entries (some i with a[i] = a[i+1])?\n\n"
            f"Output Format: a single integer, the number of such sequences modulo {data['mod']}."
        )
