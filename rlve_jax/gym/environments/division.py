"""Division (C4, C16): integer (floor) division a ÷ b; k = 1 + difficulty digits."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int

# The original's phrasing "How many full times does {a} fit into {b}?" asked the question
# backwards (its answer was a // b); here it reads the right way round.
PHRASINGS = (
    "What is {a} divided by {b}, rounded down to the nearest integer?",
    "Compute the integer part of {a} / {b}.",
    "What is the quotient when {a} is divided by {b} (ignore the remainder)?",
    "Find floor({a} / {b}).",
    "How many full times does {b} fit into {a}?",
    "Divide {a} by {b} and give the whole-number part of the result.",
    "What is {a} // {b} (integer division)?",
    "If {a} items are split into groups of {b}, how many complete groups are there?",
    "Calculate the whole-number quotient of {a} divided by {b}.",
    "What integer do you get when you divide {a} by {b} and discard the remainder?",
)


class Division(Environment):
    name = "Division"

    def levels(self, difficulty):
        return [{"digit_num": 1 + difficulty}]

    def sample(self, params, rng):
        high = 10 ** params["digit_num"] - 1
        b = rng.randint(1, high)
        q = rng.randint(0, high)
        a = b * q + rng.randint(0, b - 1)
        return {"a": a, "b": b, "phrasing": rng.randrange(len(PHRASINGS)), "reference": str(q)}

    def prompt(self, data):
        question = PHRASINGS[data["phrasing"]].format(a=data["a"], b=data["b"])
        return f"{question}\n\nOutput Format: a single integer."

    def score(self, data, answer):
        return float(parse_int(answer) == data["a"] // data["b"])
