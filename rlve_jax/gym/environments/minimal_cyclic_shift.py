"""MinimalCyclicShift: the lexicographically smallest rotation of a binary string."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import check_length, positional_match_reward


class MinimalCyclicShift(Environment):
    name = "MinimalCyclicShift"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        one_probability = rng.random()
        text = "".join("1" if rng.random() < one_probability else "0" for _ in range(params["N"]))
        return {"S": text, "reference": min(text[k:] + text[:k] for k in range(len(text)))}

    def prompt(self, data):
        return (
            f"You are given the binary string S = {data['S']}. A cyclic shift of S moves some characters from the "
            "front to the back (for example, 0111 shifted by 1 is 1110). Find the lexicographically smallest "
            "cyclic shift of S.\n\n"
            f"Output Format: the {len(data['S'])} characters of that shift with no separators."
        )

    def score(self, data, answer):
        gold = data["reference"]
        if len(check_length(answer)) != len(gold) or any(ch not in "01" for ch in answer):
            raise FormatError("expected a binary string of the same length")
        return positional_match_reward(answer, gold, beta=10)
