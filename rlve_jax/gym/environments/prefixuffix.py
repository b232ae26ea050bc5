"""Prefixuffix (POI 2012): the largest L <= N/2 whose length-L prefix and suffix are cyclic shifts of each other."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int


def largest_cyclic_border(text: str) -> int:
    for length in range(len(text) // 2, 0, -1):
        prefix, suffix = text[:length], text[-length:]
        if suffix in prefix + prefix:
            return length
    return 0


class Prefixuffix(Environment):
    name = "Prefixuffix"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        planted = rng.randint(1, n // 2)  # prefix = u + v, suffix = v + u
        cut = rng.randint(0, planted)
        word = "".join(rng.choice("ab") for _ in range(planted))
        middle = "".join(rng.choice("ab") for _ in range(n - 2 * planted))
        text = word + middle + word[cut:] + word[:cut]
        return {"S": text, "answer": largest_cyclic_border(text)}

    def prompt(self, data):
        n = len(data["S"])
        return (
            f"You are given the string S = {data['S']} of length {n}.\n"
            f"Find the largest integer L with 0 <= L <= {n // 2} such that the prefix of S of length L and the suffix "
            "of S of length L are cyclic shifts of each other (one can be turned into the other by repeatedly moving "
            "its first character to the end).\n\n"
            "Output Format: a single integer L."
        )

    def score(self, data, answer):
        return float(parse_int(answer) == data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
