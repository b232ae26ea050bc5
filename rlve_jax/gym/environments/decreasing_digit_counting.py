"""DecreasingDigitCounting: numbers in base 2^K with >= 2 strictly increasing digits and at most W bits.

With W = dK + s (0 <= s < K), a number of n <= d digits fits in W bits whenever its
digits are n distinct nonzero values (sorted, the smallest first); a number of d+1 digits
fits when its leading digit t is below 2^s and the other d digits are distinct and above t.
"""

from math import comb

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format


def count_increasing_numbers(k: int, w: int) -> int:
    """Each binomial from the previous one (a multiply and a divide), never from scratch: 0.02 s instead of
    11 s at K = 14."""
    top_digit = 2 ** k - 1
    full, spare_bits = divmod(w, k)
    total, term = 0, top_digit  # term = comb(top_digit, n - 1)
    for n in range(2, full + 1):
        term = term * (top_digit - n + 1) // n
        total += term
    term = comb(top_digit - 1, full)  # comb(top_digit - lead, full), lead = 1, 2, ...
    for lead in range(1, 2 ** spare_bits):
        total += term
        pool = top_digit - lead
        term = term * (pool - full) // pool if pool > full else 0
    return total


class DecreasingDigitCounting(CountingEnvironment):
    name = "DecreasingDigitCounting"
    # The numbers are subsets of the 2^K - 1 nonzero digits: up to 2^(2^K - 1), 4,932 digits at K = 14 (level 12).
    long_answers = True
    top_level = 11  # the largest draw of level 12 passes the output budget (tests/test_long_answers.py)

    def levels(self, difficulty):
        max_k = 2 + difficulty
        return [{"MAX_K": max_k, "MAX_W": max_k * 2 ** max_k}]

    def sample(self, params, rng):
        k = rng.randint(2, params["MAX_K"])
        w = rng.randint(k + 1, min(params["MAX_W"], k * 2 ** k))
        return {"K": k, "W": w, "gold": count_increasing_numbers(k, w)}

    def prompt(self, data):
        k, w = data["K"], data["W"]
        return (
            f"Consider positive integers written in base 2^{k} = {2 ** k} (without leading zeros). Count the "
            "integers r that satisfy all of the following:\n"
            f"- r has at least 2 digits in base {2 ** k};\n"
            "- reading from left to right, each digit is strictly smaller than the digit to its right;\n"
            f"- written in binary (without leading zeros), r has at most {w} bits.\n\n" + count_output_format()
        )
