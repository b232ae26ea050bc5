"""MaxWeightPalindromicSubstring (APIO 2014): the palindrome maximising length x number of occurrences."""

from rlve_jax.gym.environments._strings import occurrences, palindromic_intervals
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, check_length, grow_1p1


def best_palindrome(text: str) -> str:
    """Among all distinct palindromic substrings, the best weight; ties go to the lexicographically smallest."""
    candidates = sorted({text[left:right] for left, right in palindromic_intervals(text)})
    return max(candidates, key=lambda t: len(t) * occurrences(text, t))


class MaxWeightPalindromicSubstring(Environment):
    name = "MaxWeightPalindromicSubstring"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        a_probability = rng.uniform(0.3, 0.7)
        text = "".join("a" if rng.random() < a_probability else "b" for _ in range(params["N"]))
        best = best_palindrome(text)
        return {"S": text, "best_value": len(best) * occurrences(text, best), "reference": best}

    def prompt(self, data):
        return (
            f"You are given the string S = {data['S']}.\n"
            "For a palindrome T (a string that reads the same backwards), its value is the length of T multiplied by "
            "the number of times T occurs in S as a contiguous substring (overlapping occurrences count). Find a "
            "non-empty palindrome T with the largest value.\n\n"
            "Output Format: the string T itself."
        )

    def score(self, data, answer):
        if not check_length(answer):
            return 0.0  # as the original: the empty string is a palindrome of value 0
        if answer != answer[::-1]:
            return INVALID
        value = len(answer) * occurrences(data["S"], answer) if len(answer) <= len(data["S"]) else 0
        return (value / data["best_value"]) ** 5
