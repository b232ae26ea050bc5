"""Longest_DoublePalindrome: adjacent palindromes [A, B) and [B, C) with the largest total length C - A."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_exact_ints
from rlve_jax.gym.environments._strings import palindromic_intervals
from rlve_jax.gym.env import Environment


def longest_double_palindrome(text: str) -> list[int]:
    """Best A, B, C from the longest palindrome ending at and starting at every cut B."""
    n = len(text)
    ending_at, starting_at = [0] * (n + 1), [0] * (n + 1)
    for left, right in palindromic_intervals(text):
        ending_at[right] = max(ending_at[right], right - left)
        starting_at[left] = max(starting_at[left], right - left)
    cut = max(range(1, n), key=lambda b: ending_at[b] + starting_at[b])
    return [cut - ending_at[cut], cut, cut + starting_at[cut]]


class Longest_DoublePalindrome(Environment):
    name = "Longest_DoublePalindrome"

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        pieces: list[str] = []
        while sum(map(len, pieces)) < n:  # random palindromes and single letters
            half = "".join(rng.choice("ab") for _ in range(rng.randint(0, max(1, n // 3))))
            middle = rng.choice(["", "a", "b"]) if half else rng.choice("ab")
            pieces.append(half + middle + half[::-1])
        text = "".join(pieces)[:n]
        a, b, c = longest_double_palindrome(text)
        return {"S": text, "best": c - a, "reference": f"{a} {b} {c}"}

    def prompt(self, data):
        n = len(data["S"])
        return (
            f"You are given a string S = {data['S']} of length {n}; its characters are S[0], ..., S[{n - 1}].\n"
            "Find integers A < B < C such that both S[A..B-1] and S[B..C-1] are palindromes (strings that read the "
            "same backwards) and C - A is as large as possible.\n\n"
            f"Output Format: a single line with three integers A B C separated by spaces (0 <= A < B < C <= {n})."
        )

    def score(self, data, answer):
        a, b, c = parse_exact_ints(answer, 3)
        text = data["S"]
        if not 0 <= a < b < c <= len(text):
            return INVALID
        first, second = text[a:b], text[b:c]
        if first != first[::-1] or second != second[::-1]:
            return INVALID
        return ((c - a) / data["best"]) ** 5
