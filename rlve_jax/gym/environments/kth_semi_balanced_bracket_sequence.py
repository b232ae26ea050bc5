"""Kth_SemiBalancedBracketSequence: the K-th odd-length bracket string one deletion away from balanced.

A string with one more ')' than '(' can be fixed by deleting one ')' iff its running
balance never drops below -1; one with an extra '(' iff the balance never drops below 0.
"""

from functools import cache

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import positional_match_reward


@cache
def completions(remaining: int, balance: int, floor: int, end: int) -> int:
    """Ways to append `remaining` brackets keeping the balance >= floor and ending at `end`."""
    if balance < floor:
        return 0
    if remaining == 0:
        return int(balance == end)
    return (completions(remaining - 1, balance + 1, floor, end)
            + completions(remaining - 1, balance - 1, floor, end))


def count_from(remaining: int, balance: int, lowest: int) -> int:
    """Valid completions given the balance and the lowest balance reached so far."""
    extra_open = completions(remaining, balance, 0, 1) if lowest >= 0 else 0
    extra_close = completions(remaining, balance, -1, -1) if lowest >= -1 else 0
    return extra_open + extra_close


def kth_string(n: int, k: int) -> str:
    """The k-th (1-based) valid string of length n in lexicographic order, '(' before ')'."""
    chars, balance, lowest = [], 0, 0
    for position in range(n):
        for bracket, step in (("(", 1), (")", -1)):
            count = count_from(n - position - 1, balance + step, min(lowest, balance + step))
            if k <= count:
                chars.append(bracket)
                balance += step
                lowest = min(lowest, balance)
                break
            k -= count
    return "".join(chars)


class Kth_SemiBalancedBracketSequence(Environment):
    name = "Kth_SemiBalancedBracketSequence"

    def levels(self, difficulty):
        return [{"N": 3 + 2 * difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(1, count_from(n, 0, 0))
        return {"N": n, "K": k, "reference": kth_string(n, k)}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Consider the strings of length {n} made of the characters ( and ) that become a balanced bracket "
            "sequence after deleting exactly one character. (In a balanced bracket sequence, such as (()()), the "
            "brackets pair up so that every ( is matched with a later ) and matched pairs are properly nested.) "
            "Sort all such strings in lexicographic order, "
            f"where ( comes before ). Output string number {data['K']} in this order (the first string is "
            "number 1).\n\n"
            f"Output Format: a single string of {n} characters, each ( or ), with no spaces."
        )

    def score(self, data, answer):
        if len(answer) != data["N"] or any(ch not in "()" for ch in answer):
            return -0.5
        return positional_match_reward(answer, data["reference"], beta=5)
