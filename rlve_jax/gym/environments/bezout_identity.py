"""BezoutIdentity: integer coefficients X reaching the smallest positive value of sum A[i]*X[i] (= gcd)."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints


def bezout_coefficients(values: list[int]) -> list[int]:
    """X with sum(values[i] * X[i]) == gcd(values), by chaining the extended Euclid algorithm."""
    coefficients, g = [1 if values[0] > 0 else -1], abs(values[0])
    for a in values[1:]:
        # s*g + t*|a| = gcd(g, |a|)
        old_r, r, old_s, s = g, abs(a), 1, 0
        while r:
            q = old_r // r
            old_r, r, old_s, s = r, old_r - q * r, s, old_s - q * s
        t = (old_r - old_s * g) // abs(a)
        coefficients = [c * old_s for c in coefficients] + [t if a > 0 else -t]
        g = old_r
    return coefficients


class BezoutIdentity(Environment):
    name = "BezoutIdentity"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty, "MAX_A": 32 * 2**difficulty}]

    def sample(self, params, rng):
        max_a = params["MAX_A"]
        common = rng.randint(1, math.isqrt(max_a))  # a shared factor so the gcd is often above 1
        values = [rng.choice((-1, 1)) * common * rng.randint(1, max_a // common) for _ in range(params["N"])]
        gcd = math.gcd(*values)
        return {"A": values, "gcd": gcd, "reference": " ".join(map(str, bezout_coefficients(values)))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"You are given {n} integers: {' '.join(f'A[{i}]={a}' for i, a in enumerate(data['A']))}\n"
            f"Find integers X[0], ..., X[{n - 1}] such that S = "
            f"{' + '.join(f'A[{i}]*X[{i}]' for i in range(n))} is positive and as small as possible.\n\n"
            f"Output Format: a single line with the {n} integers X[0] ... X[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        xs = parse_ints(answer)
        if len(xs) != len(data["A"]):
            return -0.5
        total = sum(a * x for a, x in zip(data["A"], xs))
        if total <= 0:
            return -0.5
        return (data["gcd"] / total) ** 5
