"""PalindromicSubstringNumberCounting: integers in [L, R] whose decimal string has a palindromic substring of length > 1."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


def has_palindrome(x: int) -> bool:
    """A palindrome of length > 1 contains one of length 2 or 3 at its centre."""
    s = str(x)
    return any(s[i] == s[i + 1] for i in range(len(s) - 1)) or any(s[i] == s[i + 2] for i in range(len(s) - 2))


class PalindromicSubstringNumberCounting(Environment):
    name = "PalindromicSubstringNumberCounting"

    def levels(self, difficulty):
        return [{"MAX_R": grow_1p5(20, difficulty)}]

    def sample(self, params, rng):
        right = rng.randint(20, params["MAX_R"])
        left = rng.randint(1, right - 1)
        return {"L": left, "R": right, "reference": str(sum(map(has_palindrome, range(left, right + 1))))}

    def prompt(self, data):
        return (
            f"How many integers x with {data['L']} <= x <= {data['R']} have a decimal representation (without "
            "leading zeros) that contains a palindromic substring of length greater than 1? For example, 1213 "
            "qualifies (it contains 121) and 1234 does not.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
