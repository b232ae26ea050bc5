"""PairMoreOneCounting: pairs (S, T) of binary strings, |S| = M + delta, |T| = M, where S has more ones."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1


def strip_factor(x: int, p: int) -> tuple[int, int]:
    """(x without its factors p, how many there were)."""
    count = 0
    while x % p == 0:
        x, count = x // p, count + 1
    return x, count


def pairs_with_more_ones(m: int, delta: int, digits: int) -> int:
    """sum_{i > j} C(M+delta, i) C(M, j) = sum_{s > M} C(2M+delta, s) (pair j with M - j: Vandermonde),
    modulo 10^digits. C(n, s) is kept as (unit part mod 10^digits, powers of 2 and 5) so that the
    division by s stays possible; O(n) small-number steps instead of n-bit binomials."""
    n, mod = 2 * m + delta, 10 ** digits
    unit, twos, fives, total = 1, 0, 0, 0  # C(n, s) = unit * 2^twos * 5^fives
    for s in range(n + 1):
        if s > m:
            total += unit * pow(2, twos, mod) * pow(5, fives, mod)
        if s == n:
            break
        numerator, more_twos = strip_factor(n - s, 2)
        numerator, more_fives = strip_factor(numerator, 5)
        denominator, fewer_twos = strip_factor(s + 1, 2)
        denominator, fewer_fives = strip_factor(denominator, 5)
        unit = unit * numerator * pow(denominator, -1, mod) % mod
        twos, fives = twos + more_twos - fewer_twos, fives + more_fives - fewer_fives
    return total % mod


class PairMoreOneCounting(ModCountingEnvironment):
    name = "PairMoreOneCounting"

    def levels(self, difficulty):
        return [{"MAX_M": 10 * 2 ** difficulty, "MAX_delta": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        m, delta, k = rng.randint(1, params["MAX_M"]), rng.randint(0, params["MAX_delta"]), rng.randint(1, 5)
        return {"M": m, "delta": delta, "K": k, "mod": 10 ** k, "gold": pairs_with_more_ones(m, delta, k)}

    def prompt(self, data):
        m, delta, k = data["M"], data["delta"], data["K"]
        return (
            f"Count the pairs (S, T) where S is a binary string of length {m + delta} and T is a binary string of "
            f"length {m}, such that S contains strictly more 1s than T.\n\n"
            f"Output Format: a single integer, the count modulo 10^{k} (that is, its last {k} digits, "
            f"without leading zeros)."
        )
