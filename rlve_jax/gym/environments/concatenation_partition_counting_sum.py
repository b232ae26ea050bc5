"""ConcatenationPartitionCountingSum: sum of F(sum of parts) over all cuts of a digit string.

F(x) counts the ordered ways to write x as a sum of parts in 1..M, a linear recurrence of
order M, so F(x) = (A^x)[0][0] for the companion matrix A. Then
G(i) = sum over j < i of G(j) * A^(value of digits j..i-1) sums A^(sum of parts) over the
cuts of the first i digits, and the answer is G(N)[0][0].
"""

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


Matrix = list[list[int]]


def mat_mul(a: Matrix, b: Matrix, mod: int) -> Matrix:
    return [[sum(x * y for x, y in zip(row, col)) % mod for col in zip(*b)] for row in a]


def mat_add(a: Matrix, b: Matrix, mod: int) -> Matrix:
    return [[(x + y) % mod for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def companion(m: int, mod: int) -> Matrix:
    """F(x) = F(x-1) + ... + F(x-m) acting on the state (F(x-1), ..., F(x-m))."""
    return [[1 % mod] * m] + [[1 % mod if j == i else 0 for j in range(m)] for i in range(m - 1)]


def partition_sum(digits: str, m: int, mod: int) -> int:
    n = len(digits)
    step = companion(m, mod)
    identity = [[1 % mod if i == j else 0 for j in range(m)] for i in range(m)]
    digit_powers = [identity]
    for _ in range(9):
        digit_powers.append(mat_mul(digit_powers[-1], step, mod))
    totals = [identity] + [[[0] * m for _ in range(m)] for _ in range(n)]
    for start in range(n):
        power = identity  # A^(value of digits[start:end]), extended one digit at a time
        for end in range(start + 1, n + 1):
            square = mat_mul(power, power, mod)
            eighth = mat_mul(mat_mul(square, square, mod), mat_mul(square, square, mod), mod)
            power = mat_mul(mat_mul(eighth, square, mod), digit_powers[int(digits[end - 1])], mod)
            totals[end] = mat_add(totals[end], mat_mul(totals[start], power, mod), mod)
    return totals[n][0][0]


class ConcatenationPartitionCountingSum(ModCountingEnvironment):
    name = "ConcatenationPartitionCountingSum"
    mod_key = "MOD"
    size_keys = ("N",)

    def levels(self, difficulty):
        n = grow_1p1(2, difficulty)
        return [{"N": n, "M": m} for m in range(1, 6)]

    def sample(self, params, rng):
        n, m = params["N"], params["M"]
        digits = "".join(str(rng.randint(0, 9)) for _ in range(n))
        mod = rng.randint(2, 10_000)
        return {"S": digits, "M": m, "MOD": mod, "gold": partition_sum(digits, m, mod)}

    def prompt(self, data):
        m = data["M"]
        return (
            f"Let F(x) be the number of ways to write the non-negative integer x as an ordered sum of "
            f"integers each between 1 and {m} (so F(0) = 1, and for example with parts up to 2, "
            "F(3) = 3: 1+1+1, 1+2, 2+1).\n"
            f"You are given the digit string S = {data['S']}. Cut S into one or more non-empty contiguous "
            "pieces in every possible way; read each piece as a decimal integer (leading zeros are allowed "
            "and ignored) and add the pieces up. Compute the sum of F(that total) over all the ways of "
            "cutting S.\n\n" + mod_output_format(data["MOD"])
        )
