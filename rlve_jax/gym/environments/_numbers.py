"""Number theory, modular arithmetic, integer polynomials and counting formulas shared by a few environments."""

from __future__ import annotations

import math
from typing import Sequence

from rlve_jax.gym.environments._common import parse_ints

# ---------------------------------------------------------------------------
# Number theory


def factorize(n: int) -> dict[int, int]:
    """Prime factorisation of a small positive integer by trial division."""
    factors: dict[int, int] = {}
    p = 2
    while p * p <= n:
        while n % p == 0:
            factors[p] = factors.get(p, 0) + 1
            n //= p
        p += 1 if p == 2 else 2
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    return factors


def euler_phi(n: int) -> int:
    result = n
    for p in factorize(n):
        result -= result // p
    return result


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3e24, a strong probable-prime test above."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in small:
        y = pow(a, d, n)
        if y in (1, n - 1):
            continue
        for _ in range(s - 1):
            y = y * y % n
            if y == n - 1:
                break
        else:
            return False
    return True


def primes_up_to(n: int) -> list[int]:
    sieve = bytearray([1]) * (n + 1)
    sieve[:2] = b"\x00\x00"[: n + 1]
    for p in range(2, math.isqrt(n) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytes(len(range(p * p, n + 1, p)))
    return [p for p in range(n + 1) if sieve[p]]


def divisor_counts(limit: int) -> list[int]:
    """d(0..limit) by a sieve, with d(0) = 0."""
    counts = [0] * (limit + 1)
    for d in range(1, limit + 1):
        for multiple in range(d, limit + 1, d):
            counts[multiple] += 1
    return counts


def fraction_mod(numerator: int, denominator: int, mod: int) -> int:
    """numerator / denominator as an element of Z_mod (mod prime, denominator not a multiple)."""
    return numerator % mod * pow(denominator, -1, mod) % mod

# ---------------------------------------------------------------------------
# Integer polynomials (constant term first)


def format_polynomial(coefficients: list[int]) -> str:
    """'2*x^3 - x + 5' from coefficients listed from the constant term up."""
    terms = []
    for power in range(len(coefficients) - 1, -1, -1):
        c = coefficients[power]
        if c == 0:
            continue
        monomial = "" if power == 0 else "x" if power == 1 else f"x^{power}"
        body = str(abs(c)) if not monomial else monomial if abs(c) == 1 else f"{abs(c)}*{monomial}"
        terms.append(("-" if c < 0 else "+", body))
    if not terms:
        return "0"
    (first_sign, first_body), rest = terms[0], terms[1:]
    return ("-" if first_sign == "-" else "") + first_body + "".join(f" {sign} {body}" for sign, body in rest)


def multiply_polynomials(p: list[int], q: list[int]) -> list[int]:
    result = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            result[i + j] += a * b
    return result

# ---------------------------------------------------------------------------
# Permutations whose prefix sums / products are distinct modulo N


def prefix_residue_score(answer: str, n: int, combine) -> float:
    """Permutation of 1..n scored by (#distinct prefix residues / n)^10; not a permutation is -0.5."""
    values = parse_ints(answer)
    if sorted(values) != list(range(1, n + 1)):
        return -0.5
    residues, prefix = set(), None
    for v in values:
        prefix = v % n if prefix is None else combine(prefix, v) % n
        residues.add(prefix)
    return (len(residues) / n) ** 10


def prefix_residue_prompt(n: int, noun: str, symbol: str) -> str:
    return (
        f"Find a permutation a_1, ..., a_{n} of the integers 1 to {n} such that the prefix {noun} "
        f"a_1, a_1{symbol}a_2, ..., a_1{symbol}a_2{symbol}...{symbol}a_{n} are pairwise distinct modulo {n} "
        f"(so their remainders are exactly 0, 1, ..., {n - 1} in some order).\n\n"
        f"Output Format: a single line with the {n} numbers separated by spaces."
    )

# ---------------------------------------------------------------------------
# Counting under maximum constraints (MatrixRMQCounting, SingingGirlStory)


def count_under_exact_maxima(cell_sizes: Sequence[int], constraints: Sequence[tuple[Sequence[int], int]],
                             free_max: int) -> int:
    """Fillings of cells with values in [1, free_max] where each constraint's cells have maximum exactly its value.

    A cell of size s holds s independent entries. A cell's cap is the smallest value among the constraints
    covering it; a constraint of value v can only reach v at cells whose cap is v, so the count factorises
    over values, each factor being an inclusion-exclusion over the constraints with that value.
    """
    caps = [free_max] * len(cell_sizes)
    covered = [False] * len(cell_sizes)
    for cells, value in constraints:
        for cell in cells:
            caps[cell] = min(caps[cell], value) if covered[cell] else value
            covered[cell] = True
    total = 1
    for cell, size in enumerate(cell_sizes):
        if not covered[cell]:
            total *= free_max ** size
    for value in sorted({value for _, value in constraints}):
        group = [cell for cell in range(len(cell_sizes)) if covered[cell] and caps[cell] == value]
        reach = [[cell for cell in cells if caps[cell] == value] for cells, v in constraints if v == value]
        if any(not cells for cells in reach):
            return 0
        group_size = sum(cell_sizes[cell] for cell in group)
        factor = 0
        for subset in range(1 << len(reach)):
            lowered: set[int] = set()
            for index, cells in enumerate(reach):
                if subset >> index & 1:
                    lowered.update(cells)
            lowered_size = sum(cell_sizes[cell] for cell in lowered)
            sign = -1 if bin(subset).count("1") % 2 else 1
            factor += sign * value ** (group_size - lowered_size) * (value - 1) ** lowered_size
        total *= factor
    return total
