"""KiddingMe: N x M matrices over [0, M] with increasing rows and X[i][j] < X[i-1][j+1].

A strictly increasing row of M values from [0, M] misses exactly one value k. Row i then
reads X[i][j] = j for j < k_i and j + 1 otherwise, and the diagonal condition holds iff
k_(i-1) <= k_i + 1 or k_i >= M - 1. A DP over the missing values counts the matrices.
"""

from rlve_jax.gym.environments._common import BIG_PRIME_MODULI, ModCountingEnvironment, grow_1p1, mod_output_format


def count_matrices(n: int, m: int) -> int:
    ways = [1] * (m + 1)  # ways[k]: matrices of the rows so far whose last row misses k
    for _ in range(n - 1):
        ways = [sum(w for previous, w in enumerate(ways) if k >= m - 1 or previous <= k + 1) for k in range(m + 1)]
    return sum(ways)


class KiddingMe(ModCountingEnvironment):
    name = "KiddingMe"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        mod = rng.choice(BIG_PRIME_MODULI)
        return {"N": n, "M": m, "MOD": mod, "gold": count_matrices(n, m) % mod}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"Count the {n} x {m} matrices X (rows 1..{n}, columns 1..{m}) of integers such that:\n"
            f"- every entry is between 0 and {m} inclusive;\n"
            "- every row is strictly increasing from left to right;\n"
            f"- X[i][j] < X[i-1][j+1] for all 2 <= i <= {n} and 1 <= j <= {m - 1}.\n\n"
            + mod_output_format(data["MOD"])
        )
