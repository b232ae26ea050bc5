"""DigitLISCounting: integers in [L, R] whose digit string has a longest increasing subsequence of K.

Digit DP with the classic LIS 'tails' state: bit d is set when some increasing
subsequence ends with a smallest possible last digit d; appending digit d replaces the
smallest tail >= d. The LIS length is the number of set bits.
"""

from functools import cache

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format


def append_digit(tails: int, digit: int) -> int:
    higher = tails >> digit
    if higher:
        replaced = digit + (higher & -higher).bit_length() - 1
        tails &= ~(1 << replaced)
    return tails | 1 << digit


TRANSITIONS = [[append_digit(mask, d) for d in range(10)] for mask in range(1024)]


@cache
def completions(remaining: int, tails: int, k: int) -> int:
    """Ways to append `remaining` arbitrary digits and end with LIS exactly k (<= 10 * 1024 * N states)."""
    if remaining == 0:
        return int(tails.bit_count() == k)
    return sum(completions(remaining - 1, nxt, k) for nxt in TRANSITIONS[tails])


def count_up_to(bound: int, k: int) -> int:
    """Integers in [0, bound] with LIS exactly k (0 is the digit string '0')."""
    if bound < 0:
        return 0

    def free(remaining: int, tails: int) -> int:
        return completions(remaining, tails, k)

    digits = [int(c) for c in str(bound)]
    total = int(k == 1)  # the number 0
    for length in range(1, len(digits)):  # shorter numbers: any nonzero leading digit
        total += sum(free(length - 1, TRANSITIONS[0][lead]) for lead in range(1, 10))
    tails = 0
    for position, digit in enumerate(digits):  # numbers with the full length, below the bound
        first = 1 if position == 0 else 0
        total += sum(free(len(digits) - position - 1, TRANSITIONS[tails][d]) for d in range(first, digit))
        tails = TRANSITIONS[tails][digit]
    if bound > 0:
        total += int(tails.bit_count() == k)  # the bound itself
    return total


class DigitLISCounting(CountingEnvironment):
    name = "DigitLISCounting"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        high = rng.randint(10 ** (n - 1), 10 ** n - 1)
        low = rng.randint(0, high)
        k = rng.randint(1, min(n, 10))
        return {"L": low, "R": high, "K": k, "gold": count_up_to(high, k) - count_up_to(low - 1, k)}

    def prompt(self, data):
        return (
            f"Count the integers x with {data['L']} <= x <= {data['R']} such that the longest strictly "
            f"increasing subsequence of the decimal digits of x (written without leading zeros) has length "
            f"exactly {data['K']}. For example, the digits of 1324 have longest strictly increasing "
            "subsequences 1 3 4 and 1 2 4, of length 3.\n\n" + count_output_format()
        )
