"""PairMoreOneCounting: pairs (S, T) of binary strings, |S| = M + delta, |T| = M, where S has more ones."""

from environments._combob_util import ModCountingEnvironment
from rlve_jax.env import grow


def pairs_with_more_ones(m: int, delta: int) -> int:
    """sum_{i > j} C(M+delta, i) C(M, j) = sum_{s > M} C(2M+delta, s), pairing j with M - j (Vandermonde)."""
    n = 2 * m + delta
    total, binomial = 0, 1  # binomial = C(n, s)
    for s in range(n + 1):
        if s > m:
            total += binomial
        binomial = binomial * (n - s) // (s + 1)
    return total


class PairMoreOneCounting(ModCountingEnvironment):
    name = "PairMoreOneCounting"

    def levels(self, difficulty):
        return [{"MAX_M": 10 * 2 ** difficulty, "MAX_delta": grow(5, lambda x: int(1.1 * x + 1), difficulty)}]

    def sample(self, params, rng):
        m, delta, k = rng.randint(1, params["MAX_M"]), rng.randint(0, params["MAX_delta"]), rng.randint(1, 5)
        return {"M": m, "delta": delta, "K": k, "mod": 10 ** k, "gold": pairs_with_more_ones(m, delta) % 10 ** k}

    def prompt(self, data):
        m, delta, k = data["M"], data["delta"], data["K"]
        return (
            f"Count the pairs (S, T) where S is a binary string of length {m + delta} and T is a binary string of "
            f"length {m}, such that S contains strictly more 1s than T.\n\n"
            f"Output Format: a single integer, the count modulo 10^{k} (that is, its last {k} digits, "
            f"without leading zeros)."
        )
