"""DoublePalindromicStringCounting: strings of length <= N that are two non-empty palindromes glued.

Count pairs (w, i) where w[:i] and w[i:] are palindromes, 0 <= i < n: T(n) =
sum_i Pal(i) Pal(n-i) with Pal(j) = C^ceil(j/2). A primitive word has at most one such
split and u^k has exactly k times as many as u (Kemp's theorem on palindromic
factorisations), so T(n) = sum_{d | n} (n/d) P(d) for the number P(d) of primitive words
with a split, inverted by Moebius. A word has a split with both parts non-empty unless
it is a primitive palindrome (its only split is i = 0), so the words of length n are
sum_{d | n} P(d) minus the primitive palindromes of length n.
"""

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format, grow_1p1


def moebius(n: int) -> int:
    result, p = 1, 2
    while p * p <= n:
        if n % p == 0:
            n //= p
            if n % p == 0:
                return 0
            result = -result
        p += 1
    return -result if n > 1 else result


def count_double_palindromes(max_length: int, alphabet: int) -> int:
    def palindromes(j: int) -> int:
        return alphabet ** ((j + 1) // 2)

    def divisors(n: int) -> list[int]:
        return [d for d in range(1, n + 1) if n % d == 0]

    def primitive_with_split(n: int) -> int:
        """P(n) = n * sum_{d | n} mu(n/d) T(d) / d = sum_{d | n} mu(n/d) T(d) (n/d)."""
        return sum(moebius(n // d) * sum(palindromes(i) * palindromes(d - i) for i in range(d)) * (n // d)
                   for d in divisors(n))

    total = 0
    for n in range(2, max_length + 1):
        primitive_palindromes = sum(moebius(n // d) * palindromes(d) for d in divisors(n))
        total += sum(primitive_with_split(d) for d in divisors(n)) - primitive_palindromes
    return total


class DoublePalindromicStringCounting(CountingEnvironment):
    name = "DoublePalindromicStringCounting"
    positive_only = True

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(2, params["MAX_N"])
        alphabet = rng.randint(2, 5)
        return {"N": n, "C": alphabet, "gold": count_double_palindromes(n, alphabet)}

    def prompt(self, data):
        n, c = data["N"], data["C"]
        return (
            f"Consider strings over an alphabet of {c} letters. A palindrome reads the same forwards and "
            f"backwards. How many distinct strings of length at most {n} can be written as the concatenation "
            "of two non-empty palindromes? (For example, with letters a and b, `aab` = `aa` + `b` counts, "
            "while `abba` cannot be split that way.)\n\n" + count_output_format()
        )
