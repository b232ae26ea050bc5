"""String helpers shared by the palindrome and substring environments."""

from __future__ import annotations

import random


def palindromic_intervals(text: str):
    """Every palindromic substring as a half-open interval [l, r), by expanding around all 2n-1 centres."""
    n = len(text)
    for centre in range(2 * n - 1):
        left, right = centre // 2, centre // 2 + centre % 2
        while left >= 0 and right < n and text[left] == text[right]:
            yield left, right + 1
            left, right = left - 1, right + 1


def planted_string(rng: random.Random, length: int, alphabet: str, planted: str) -> str:
    """A random string of the given length with `planted` written at a random position."""
    text = [rng.choice(alphabet) for _ in range(length)]
    start = rng.randint(0, length - len(planted))
    text[start:start + len(planted)] = planted
    return "".join(text)


def occurrences(text: str, pattern: str) -> int:
    """Overlapping occurrences of a non-empty pattern."""
    count, start = 0, text.find(pattern)
    while start >= 0:
        count += 1
        start = text.find(pattern, start + 1)
    return count
