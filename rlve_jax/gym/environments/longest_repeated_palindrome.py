"""Longest_RepeatedPalindrome: the longest substring of the form A + reverse(A) + A + reverse(A)."""

from rlve_jax.gym.environments._strings import palindromic_intervals, planted_string
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, check_length, grow_1p1


def has_required_form(candidate: str) -> bool:
    """X + X with X an even-length palindrome, which is exactly A + rev(A) + A + rev(A) with A non-empty."""
    half = len(candidate) // 2
    first = candidate[:half]
    return len(candidate) % 4 == 0 and half > 0 and candidate[half:] == first and first == first[::-1]


def longest_repeated_palindrome(text: str) -> str:
    best = ""
    for left, right in palindromic_intervals(text):
        half = right - left
        if half % 2 == 0 and 2 * half > len(best) and text[right:right + half] == text[left:right]:
            best = text[left:right + half]
    return best


class Longest_RepeatedPalindrome(Environment):
    name = "Longest_RepeatedPalindrome"

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        a = "".join(rng.choice("ab") for _ in range(rng.randint(1, n // 4)))
        text = planted_string(rng, n, "ab", (a + a[::-1]) * 2)
        return {"S": text, "reference": longest_repeated_palindrome(text)}

    def prompt(self, data):
        return (
            f"You are given the string S = {data['S']}.\n"
            "Find the longest contiguous substring T of S that can be written as T = A + reverse(A) + A + "
            "reverse(A) for some non-empty string A (+ is concatenation). For example, abbaabba has this form with "
            "A = ab.\n\n"
            "Output Format: the substring T itself."
        )

    def score(self, data, answer):
        text = data["S"]
        if not check_length(answer) or len(answer) > len(text) or answer not in text or not has_required_form(answer):
            return INVALID
        return (len(answer) / len(data["reference"])) ** 5
