"""IndividualSumBounded_SequenceCounting: sequences with X[1] >= 1, X[i] in [1, M] and total <= N.

For fixed X[2..K] with sum s, X[1] has N - s choices; since M(K-1) <= N-1 every s works,
so the count is sum (N - s) = M^(K-1) N - (K-1) M^(K-2) M(M+1)/2.
"""

import math

from rlve_jax.gym.environments._common import ModCountingEnvironment, mod_output_format


def count_sequences(n: int, k: int, m: int, mod: int) -> int:
    return pow(m, k - 2, mod) * (m * n - (k - 1) * m * (m + 1) // 2) % mod


class IndividualSumBounded_SequenceCounting(ModCountingEnvironment):
    name = "IndividualSumBounded_SequenceCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N": 4 * 2 ** difficulty}]

    def sample(self, params, rng):
        n = rng.randint(2, params["MAX_N"])
        k = int(2 ** rng.uniform(1, math.log2(n)))
        m = rng.randint(1, (n - 1) // (k - 1))
        mod = rng.randint(2, 10 ** 9)
        return {"N": n, "K": k, "M": m, "MOD": mod, "gold": count_sequences(n, k, m, mod)}

    def prompt(self, data):
        n, k, m = data["N"], data["K"], data["M"]
        return (
            f"Count the sequences of integers X[1], X[2], ..., X[{k}] such that X[1] >= 1, "
            f"1 <= X[i] <= {m} for every 2 <= i <= {k}, and X[1] + X[2] + ... + X[{k}] <= {n}.\n\n"
            + mod_output_format(data["MOD"])
        )
