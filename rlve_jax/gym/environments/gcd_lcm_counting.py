"""GcdLcmCounting: ordered positive pairs (P, Q) with gcd(P, Q) = G and lcm(P, Q) = L."""

from rlve_jax.gym.environments._numbers import factorize
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, parse_int, ratio_reward


class GcdLcmCounting(Environment):
    name = "GcdLcmCounting"

    def levels(self, difficulty):
        return [{"MAX_LCM": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        lcm = rng.randint(1, params["MAX_LCM"])
        if rng.random() < 0.01:  # an arbitrary G, which may not divide L (answer 0)
            gcd = rng.randint(1, lcm)
        else:
            gcd = rng.choice([g for g in range(1, lcm + 1) if lcm % g == 0])
        count = 2 ** len(factorize(lcm // gcd)) if lcm % gcd == 0 else 0
        return {"G": gcd, "L": lcm, "reference": str(count)}

    def prompt(self, data):
        return (
            f"How many ordered pairs of positive integers (P, Q) satisfy gcd(P, Q) = {data['G']} and "
            f"lcm(P, Q) = {data['L']}?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        value, reference = parse_int(answer), int(data["reference"])
        if value < 0:
            return -1.0
        if reference == 0:
            return float(value == 0)
        if value <= 0 or value & (value - 1):  # every non-zero count is a power of two
            return 0.0
        return ratio_reward(value, reference, 10)
