"""GCDPrime_Counting: pairs (x, y) in [1, N] x [1, M] whose gcd is prime."""

import math

from rlve_jax.gym.environments._numbers import primes_up_to
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


class GCDPrime_Counting(Environment):
    name = "GCDPrime_Counting"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        primes = set(primes_up_to(max(n, m)))
        count = sum(math.gcd(x, y) in primes for x in range(1, n + 1) for y in range(1, m + 1))
        return {"N": n, "M": m, "reference": str(count)}

    def prompt(self, data):
        return (
            f"How many pairs of integers (x, y) with 1 <= x <= {data['N']} and 1 <= y <= {data['M']} "
            "have a greatest common divisor gcd(x, y) that is a prime number?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
