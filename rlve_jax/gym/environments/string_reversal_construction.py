"""StringReversalConstruction (CF 936C): turn s into t with few 'shift x' operations."""

import string

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, parse_ints


def shift(text: str, x: int) -> str:
    """Reverse the suffix of length x and move it to the front."""
    return text[len(text) - x:][::-1] + text[:len(text) - x]


class StringReversalConstruction(Environment):
    name = "StringReversalConstruction"

    def levels(self, difficulty):
        return [{"n": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["n"]
        while True:
            source = "".join(rng.choice(string.ascii_lowercase) for _ in range(n))
            operations = [rng.randint(0, n) for _ in range(rng.randint(1, n // 2))]
            target = source
            for x in operations:
                target = shift(target, x)
            if target != source:
                return {"s": source, "t": target, "max_k": 3 * n, "reference": " ".join(map(str, operations))}

    def prompt(self, data):
        n = len(data["s"])
        return (
            f"You are given two strings of length {n}: s = {data['s']} and t = {data['t']}.\n"
            f"An operation 'shift x' (0 <= x <= {n}) takes the last x characters of the current string, reverses "
            "them and moves them to the front: a string A + B with |B| = x becomes reverse(B) + A. For example, "
            "shift 2 turns abcde into edabc.\n"
            f"Turn s into t using at most {data['max_k']} operations.\n\n"
            "Output Format: a single line with the values x of your operations in order, separated by spaces."
        )

    def score(self, data, answer):
        operations = parse_ints(answer)
        n = len(data["s"])
        if len(operations) > data["max_k"] or any(not 0 <= x <= n for x in operations):
            return INVALID
        text = data["s"]
        for x in operations:
            text = shift(text, x)
        return float(text == data["t"])

    def perturb(self, problem, answer):
        return f"{answer} {len(problem.data['s']) + 1}"  # an operation out of range
