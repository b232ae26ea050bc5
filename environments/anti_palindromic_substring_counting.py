"""AntiPalindromicSubstringCounting: count substrings whose reverse equals their bitwise complement."""

from rlve_jax.env import Environment, grow_1p1, score_count


def count_anti_palindromes(bits: str) -> int:
    """Anti-palindromes have even length; expand around every gap while the ends differ."""
    total = 0
    for centre in range(1, len(bits)):
        left, right = centre - 1, centre
        while left >= 0 and right < len(bits) and bits[left] != bits[right]:
            total += 1
            left, right = left - 1, right + 1
    return total


class AntiPalindromicSubstringCounting(Environment):
    name = "AntiPalindromicSubstringCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        pieces: list[str] = []
        while sum(map(len, pieces)) < n:  # random anti-palindromic blocks h + complement(reverse(h))
            half = "".join(rng.choice("01") for _ in range(rng.randint(1, max(1, n // 4))))
            pieces.append(half + "".join("1" if b == "0" else "0" for b in reversed(half)))
        bits = "".join(pieces)[:n]
        return {"S": bits, "answer": count_anti_palindromes(bits)}

    def prompt(self, data):
        return (
            f"You are given a binary string S = {data['S']} (length {len(data['S'])}).\n"
            "A string T is anti-palindromic if reversing T gives the same string as flipping every bit of T "
            "(0 <-> 1); for example 0101 and 0011 are, 010 is not. Count the non-empty contiguous substrings of S "
            "(counted by position, so equal substrings at different positions count separately) that are "
            "anti-palindromic.\n\n"
            "Output Format: a single integer, the count."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
