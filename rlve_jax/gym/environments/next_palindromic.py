"""NextPalindromic (held-out): the smallest palindrome strictly greater than N."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward, parse_int
from rlve_jax.gym.env import Environment


def next_palindrome(n: int) -> int:
    """Mirror the left half; if that is not larger, increment the left half (carrying into a new digit)."""
    digits = str(n + 1)
    length = len(digits)
    half = digits[:(length + 1) // 2]
    candidate = int(half + half[:length // 2][::-1])
    if candidate >= n + 1:
        return candidate
    half = str(int(half) + 1)
    if len(half) > (length + 1) // 2:  # 99..9 + 1: the next palindrome is 10..01
        return 10 ** length + 1
    return int(half + half[:length // 2][::-1])


class NextPalindromic(Environment):
    name = "NextPalindromic"

    def levels(self, difficulty):
        return [{"digit_num": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(1, 10 ** params["digit_num"] - 1)
        return {"N": n, "reference": str(next_palindrome(n))}

    def prompt(self, data):
        return (
            f"Find the smallest palindromic number strictly greater than {data['N']} (a palindromic number reads "
            "the same forwards and backwards in decimal, like 121 or 7).\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        value = parse_int(answer)
        if value <= data["N"] or str(value) != str(value)[::-1]:
            return INVALID
        return minimization_reward(int(data["reference"]), value, beta=5)
