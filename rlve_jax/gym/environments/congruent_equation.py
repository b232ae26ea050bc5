"""CongruentEquation: the smallest positive x with A*x = 1 (mod B)."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int


class CongruentEquation(Environment):
    name = "CongruentEquation"

    def levels(self, difficulty):
        return [{"MAX_A_B": 5 * 2**difficulty}]

    def sample(self, params, rng):
        while True:
            a, b = rng.randint(1, params["MAX_A_B"]), rng.randint(2, params["MAX_A_B"])
            if math.gcd(a, b) == 1:
                return {"A": a, "B": b, "reference": str(pow(a, -1, b))}

    def prompt(self, data):
        return (
            f"Find the smallest positive integer x such that {data['A']} * x is congruent to 1 modulo {data['B']}, "
            f"i.e. ({data['A']} * x) mod {data['B']} = 1.\n\n"
            "Output Format: a single positive integer x."
        )

    def score(self, data, answer):
        x = parse_int(answer)
        if x <= 0:
            return -1.0
        if data["A"] * x % data["B"] != 1:
            return -0.5
        return float(x == int(data["reference"]))
