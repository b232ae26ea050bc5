"""ODLDistance: for each number, the nearest other one when a step multiplies or divides by a prime."""

import math

from rlve_jax.gym.environments._numbers import factorize
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints, positional_match_reward


def prime_steps(a: int, b: int) -> int:
    """D(a, b) = number of prime factors (with multiplicity) of a/g and b/g, g = gcd(a, b)."""
    g = math.gcd(a, b)
    return sum(factorize(a // g).values()) + sum(factorize(b // g).values())


class ODLDistance(Environment):
    name = "ODLDistance"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = rng.sample(range(1, 4 * n + 1), n)
        nearest = [min((j for j in range(n) if j != i), key=lambda j: (prime_steps(values[i], values[j]), j)) + 1
                   for i in range(n)]
        return {"values": values, "reference": " ".join(map(str, nearest))}

    def prompt(self, data):
        n = len(data["values"])
        listing = " ".join(f"a[{i + 1}]={v}" for i, v in enumerate(data["values"]))
        return (
            "In one step you may multiply a positive integer by a prime number, or divide it by a prime number "
            "that divides it. The distance D(a, b) is the minimum number of steps that turn a into b; for example "
            "D(69, 42) = 3, since 69 / 23 = 3, 3 * 2 = 6 and 6 * 7 = 42.\n"
            f"You are given {n} distinct positive integers: {listing}\n"
            "For each index i, find the index j != i that minimizes D(a[i], a[j]); if several j tie, "
            "choose the smallest such j.\n\n"
            f"Output Format: a single line with {n} integers (the chosen j for i = 1, ..., {n}) separated by spaces."
        )

    def score(self, data, answer):
        chosen, gold = parse_ints(answer), list(map(int, data["reference"].split()))
        n = len(gold)
        if len(chosen) != n or any(not 1 <= j <= n or j == i + 1 for i, j in enumerate(chosen)):
            return -0.5
        return positional_match_reward(chosen, gold, 5)
