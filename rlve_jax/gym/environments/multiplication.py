"""Multiplication (C1, C4, C16): the product of two k-digit numbers, k = 2 + difficulty."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int

PHRASINGS = (
    "What is {a} * {b}?",
    "Compute {a} times {b}.",
    "Calculate the product of {a} and {b}.",
    "Multiply {a} by {b}. What is the result?",
    "{a} * {b} = ?",
    "Find the value of {a} multiplied by {b}.",
    "What do you get when you multiply {a} and {b}?",
    "Evaluate {a} x {b}.",
    "What number is {a} times as large as {b}?",
    "Give the result of multiplying {a} with {b}.",
)


class Multiplication(Environment):
    name = "Multiplication"

    def levels(self, difficulty):
        return [{"digit_num": 2 + difficulty}]

    def sample(self, params, rng):
        high = 10 ** params["digit_num"] - 1
        a, b = rng.randint(0, high), rng.randint(0, high)
        return {"a": a, "b": b, "phrasing": rng.randrange(len(PHRASINGS)), "reference": str(a * b)}

    def prompt(self, data):
        question = PHRASINGS[data["phrasing"]].format(a=data["a"], b=data["b"])
        return f"{question}\n\nOutput Format: a single integer."

    def score(self, data, answer):
        return float(parse_int(answer) == data["a"] * data["b"])
