"""LCM: the least common multiple of two integers."""

import math

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p5

PHRASINGS = (
    "What is the least common multiple of {a} and {b}?",
    "Compute lcm({a}, {b}).",
    "Find the smallest positive integer that is divisible by both {a} and {b}.",
    "Calculate the LCM of {a} and {b}.",
    "What is the lowest common multiple of the numbers {a} and {b}?",
    "Determine the least positive common multiple of {a} and {b}.",
)


class LCM(ExactIntegerEnvironment):
    name = "LCM"

    def levels(self, difficulty):
        return [{"MAX_a_b": grow_1p5(15, difficulty)}]

    def sample(self, params, rng):
        a, b = rng.randint(2, params["MAX_a_b"]), rng.randint(2, params["MAX_a_b"])
        return {"a": a, "b": b, "phrasing": rng.randrange(len(PHRASINGS)), "reference": str(math.lcm(a, b))}

    def prompt(self, data):
        return f"{PHRASINGS[data['phrasing']].format(a=data['a'], b=data['b'])}\n\nOutput Format: a single integer."
