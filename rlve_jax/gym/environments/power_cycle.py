"""PowerCycle: the period with which the last K decimal digits of N^1, N^2, ... eventually repeat."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, parse_int


def eventual_period(n: int, k: int) -> int:
    """Modulo the part of 10^k sharing a prime with n the powers become 0; the period is the
    multiplicative order of n modulo the rest, a divisor of its Carmichael function."""
    unit_modulus = 10**k
    for p in (2, 5):
        if n % p == 0:
            unit_modulus //= p**k
    if unit_modulus == 1:
        return 1
    two_power = math.gcd(unit_modulus, 2**k)
    five_power = unit_modulus // two_power
    lam_two = 1 if two_power <= 2 else 2 if two_power == 4 else two_power // 4
    lam_five = 1 if five_power == 1 else 4 * five_power // 5
    order = math.lcm(lam_two, lam_five)
    for p in (2, 5):
        while order % p == 0 and pow(n, order // p, unit_modulus) == 1:
            order //= p
    return order


class PowerCycle(Environment):
    name = "PowerCycle"

    def levels(self, difficulty):
        return [{"digit_num": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        digits = params["digit_num"]
        n, k = rng.randint(1, 10**digits - 1), rng.randint(1, digits)
        return {"N": n, "K": k, "reference": str(eventual_period(n, k))}

    def prompt(self, data):
        digits = f"{data['K']} decimal digit{'s' if data['K'] > 1 else ''}"
        return (
            "The last digit of the powers of 2 (2, 4, 8, 16, 32, 64, ...) repeats as 2, 4, 8, 6, 2, 4, 8, 6, ...: "
            "its cycle length is 4 (8, 12, ... also repeat, but 4 is the smallest).\n"
            f"Consider the last {digits} of the powers {data['N']}^1, {data['N']}^2, "
            f"{data['N']}^3, .... This sequence is eventually periodic. Find its minimal cycle length: the smallest "
            f"positive integer L such that {data['N']}^(a+L) and {data['N']}^a have the same last {digits} "
            "for every sufficiently large a.\n\n"
            "Output Format: a single positive integer L."
        )

    def score(self, data, answer):
        length, cycle = parse_int(answer), int(data["reference"])
        if length <= 0:
            return -1.0
        return cycle / length if length % cycle == 0 else 0.0  # linear in the original
