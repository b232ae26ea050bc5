"""MinKDivisorNumber: the smallest positive integer with exactly K divisors."""

import functools
import math

from rlve_jax.gym.environments._numbers import is_prime, primes_up_to
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int

TRIAL_PRIMES = primes_up_to(1 << 14)


@functools.lru_cache(maxsize=None)
def smallest_with_divisors(k: int, index: int = 0, max_exponent: int | None = None) -> int | None:
    """Exponents are non-increasing along the primes 2, 3, 5, ...; try each divisor e + 1 of k.

    None when k cannot be split with exponents at most max_exponent.
    """
    if k == 1:
        return 1
    options = []
    for exponent in range(1, k if max_exponent is None else min(k - 1, max_exponent) + 1):
        if k % (exponent + 1) == 0:
            rest = smallest_with_divisors(k // (exponent + 1), index + 1, exponent)
            if rest is not None:
                options.append(TRIAL_PRIMES[index] ** exponent * rest)
    return min(options, default=None)


def divisor_count(n: int) -> int | None:
    """Number of divisors, or None when n keeps two unknown prime factors above 2^14."""
    count = 1
    for p in TRIAL_PRIMES:
        if p * p > n:
            break
        exponent = 0
        while n % p == 0:
            n, exponent = n // p, exponent + 1
        count *= exponent + 1
    if n == 1:
        return count
    if is_prime(n):
        return 2 * count
    root = math.isqrt(n)
    if root * root == n and is_prime(root):
        return 3 * count
    return None


class MinKDivisorNumber(Environment):
    name = "MinKDivisorNumber"
    long_answers = True  # exact answers outgrow Python's 4,300-digit int/str limit at high levels

    def levels(self, difficulty):
        return [{"MAX_K": 5 * 2**difficulty}]

    def sample(self, params, rng):
        k = rng.randint(1, params["MAX_K"])
        return {"K": k, "reference": str(smallest_with_divisors(k))}

    def prompt(self, data):
        return (
            f"Find the smallest positive integer that has exactly {data['K']} positive divisors "
            "(counting 1 and the number itself).\n\n"
            "Output Format: a single positive integer."
        )

    def score(self, data, answer):
        value, reference = parse_int(answer), int(data["reference"])
        if value <= 0:
            return -1.0
        if value == reference:
            return 1.0
        # Below the minimum no number has K divisors; far above it (ref/ans)^2 < 2^-128 rounds to 0,
        # which also keeps the factorisation below bounded by the reference's size.
        if value < reference or value.bit_length() > 2 * reference.bit_length() + 64:
            return 0.0
        if divisor_count(value) != data["K"]:
            return 0.0
        return (reference / value) ** 2
