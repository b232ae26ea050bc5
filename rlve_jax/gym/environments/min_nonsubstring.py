"""MinNonsubstring: the shortest, then lexicographically smallest, a/b string that does not occur in A."""

from itertools import product

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, check_length


def shortest_absent(text: str) -> str:
    length = 1
    while True:
        present = {text[i:i + length] for i in range(len(text) - length + 1)}
        for letters in product("ab", repeat=length):  # lexicographic order
            candidate = "".join(letters)
            if candidate not in present:
                return candidate
        length += 1


class MinNonsubstring(Environment):
    name = "MinNonsubstring"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        text = "".join(rng.choice("ab") for _ in range(params["N"]))
        return {"A": text, "reference": shortest_absent(text)}

    def prompt(self, data):
        return (
            f"You are given the string A = {data['A']}.\n"
            "Find the shortest string made of the letters a and b that does not occur in A as a contiguous "
            "substring. If several strings have that length, give the lexicographically smallest one.\n\n"
            "Output Format: the string itself."
        )

    def score(self, data, answer):
        if any(ch not in "ab" for ch in check_length(answer)):
            return INVALID
        return float(answer == data["reference"])
