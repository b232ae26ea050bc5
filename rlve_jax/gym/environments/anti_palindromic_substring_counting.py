"""AntiPalindromicSubstringCounting: count substrings whose reverse equals their bitwise complement."""

import random

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def count_anti_palindromes(bits: str) -> int:
    """Anti-palindromes have even length; expand around every gap while the ends differ."""
    total = 0
    for centre in range(1, len(bits)):
        left, right = centre - 1, centre
        while left >= 0 and right < len(bits) and bits[left] != bits[right]:
            total += 1
            left, right = left - 1, right + 1
    return total


def biased_bits(length: int, q: float, rng: random.Random) -> str:
    """`length` random bits, each 1 with probability q."""
    return "".join("1" if rng.random() < q else "0" for _ in range(length))


class AntiPalindromicSubstringCounting(Environment):
    name = "AntiPalindromicSubstringCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        """The original's string: [0, N) cut at U[0, N-1] distinct random points; one bias q = U(0, 1) per
        string; an even-length piece is a q-biased random half followed by its reversed complement (an
        anti-palindrome), an odd-length piece is q-biased random bits."""
        n = params["N"]
        q = rng.random()
        cuts = sorted(rng.sample(range(1, n), rng.randint(0, n - 1)))
        pieces = []
        for start, end in zip([0, *cuts], [*cuts, n]):
            length = end - start
            if length % 2:
                pieces.append(biased_bits(length, q, rng))
            else:
                half = biased_bits(length // 2, q, rng)
                pieces.append(half + "".join("1" if b == "0" else "0" for b in reversed(half)))
        bits = "".join(pieces)
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
