"""MinKDivisorNumber: the smallest positive integer with exactly K divisors (at most ANSWER_BUDGET_CHARS digits)."""

import math

from rlve_jax.gym.environments._numbers import is_prime, primes_up_to
from rlve_jax.gym.env import ANSWER_BUDGET_CHARS, Environment
from rlve_jax.gym.environments._common import parse_int

TRIAL_PRIMES = primes_up_to(1 << 14)


def smallest_with_divisors(k: int) -> int:
    """Exponents are non-increasing along the primes 2, 3, 5, ...; try each divisor e + 1 of k.

    A memo per call: a process-wide cache would keep every huge answer a worker ever built.
    """
    small = [d for d in range(1, math.isqrt(k) + 1) if k % d == 0]
    divisors = sorted(set(small + [k // d for d in small]))[1:]  # every divisor of a part of k divides k
    memo: dict[tuple[int, int, int], int | None] = {}

    def best(k: int, index: int, max_exponent: int) -> int | None:  # None: k cannot be split so
        if k == 1:
            return 1
        if (k, index, max_exponent) not in memo:
            options = [TRIAL_PRIMES[index] ** (d - 1) * rest for d in divisors
                       if d <= max_exponent + 1 and k % d == 0 and (rest := best(k // d, index + 1, d - 1))]
            memo[k, index, max_exponent] = min(options, default=None)
        return memo[k, index, max_exponent]

    return best(k, 0, k - 1)


def answer_fits(k: int) -> bool:
    """Whether the answer for k surely has at most ANSWER_BUDGET_CHARS digits: k's prime factors q1 >= q2 >= ...
    as exponents q - 1 of 2, 3, 5, ... give a number with k divisors, which bounds the smallest from above."""
    factors, rest = [], k
    for p in TRIAL_PRIMES:
        if p * p > rest:
            break
        while rest % p == 0:
            factors.append(p)
            rest //= p
    factors = sorted(factors + ([rest] if rest > 1 else []), reverse=True)
    digits = sum((q - 1) * math.log10(p) for q, p in zip(factors, TRIAL_PRIMES))
    return digits < ANSWER_BUDGET_CHARS - 1  # a digit of margin for rounding


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
        """K uniform in 1..MAX_K, drawn again below itself while its answer would exceed the output budget
        (K prime asks for 2^(K-1)); K = 1 always fits, so this ends at every level."""
        k = rng.randint(1, params["MAX_K"])
        while not answer_fits(k):
            k = rng.randint(1, k - 1)
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
