"""DivisorFlipExpectation: expected presses of random light switches until an optimal finish is short.

Pressing switch i toggles every light j that divides i. Deciding switches from N down to
1 shows the optimal set is unique, of size c. While the optimum needs i > K presses, a
random press lowers it with probability i/N and raises it otherwise, so the expected
steps to go from i to i-1 is f_i = (N + (N - i) f_{i+1}) / i with f_N = 1. The answer is
(K + f_{K+1} + ... + f_c) * N!, or c * N! when c <= K.
"""

from fractions import Fraction
from math import factorial

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


MOD = 10 ** 9 + 7


def optimal_presses(states: list[int]) -> int:
    lights = list(states)
    n, presses = len(lights), 0
    for i in range(n, 0, -1):
        if lights[i - 1]:
            presses += 1
            for j in range(1, i + 1):
                if i % j == 0:
                    lights[j - 1] ^= 1
    return presses


def expected_presses_times_factorial(states: list[int], k: int) -> int:
    n, needed = len(states), optimal_presses(states)
    if needed <= k:
        expected = Fraction(needed)
    else:
        steps, expected = Fraction(1), Fraction(k)
        for i in range(n, k, -1):  # steps = f_i, from f_N down
            if i < n:
                steps = (n + (n - i) * steps) / i
            if i <= needed:
                expected += steps
    total = expected * factorial(n)
    assert total.denominator == 1
    return total.numerator


class DivisorFlipExpectation(ModCountingEnvironment):
    name = "DivisorFlipExpectation"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(0, n)
        states = [rng.randint(0, 1) for _ in range(n)]
        return {"N": n, "K": k, "states": states, "MOD": MOD,
                "gold": expected_presses_times_factorial(states, k) % MOD}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"There are {n} lights numbered 1 to {n} and {n} switches numbered 1 to {n}. Pressing switch i "
            "toggles (on <-> off) every light j such that j divides i. The lights are initially "
            f"(light 1 first, 1 = on, 0 = off): {' '.join(map(str, data['states']))}\n"
            "The goal is to turn all lights off. The following strategy is used: as long as all lights "
            f"cannot be turned off with at most {k} presses, press a switch chosen uniformly at random among "
            f"the {n} switches; as soon as they can be turned off with at most {k} presses, finish with the "
            "minimum number of presses.\n"
            f"Let E be the expected total number of presses. E * {n}! is an integer; compute it.\n\n"
            + mod_output_format(MOD)
        )
