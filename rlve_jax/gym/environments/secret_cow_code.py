"""SecretCowCode (USACO): the K-th character of the limit of s -> s + rotate_right(s)."""

import string

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p1


def kth_character(text: str, k: int) -> str:
    """Undo doublings: position k > half of the smallest covering length maps back into the first half."""
    while k > len(text):
        half = len(text)
        while 2 * half < k:
            half *= 2
        k = half if k == half + 1 else k - half - 1
    return text[k - 1]


class SecretCowCode(Environment):
    name = "SecretCowCode"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(5, difficulty), "MAX_K": 8 * 2 ** difficulty}]

    def sample(self, params, rng):
        text = "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(2, params["MAX_N"])))
        k = rng.randint(len(text) + 1, max(len(text) + 1, params["MAX_K"]))
        return {"S": text, "K": k, "reference": kth_character(text, k)}

    def prompt(self, data):
        return (
            f"Start with the string S = {data['S']}. Repeat forever: replace S by S followed by S rotated right by "
            "one position (the rotation moves the last character of S to the front). For example, ABC becomes "
            "ABCCAB, then ABCCABBABCCA, and so on.\n"
            f"What is the character at position {data['K']} (counting from 1) of the resulting infinite string?\n\n"
            "Output Format: the single character."
        )

    def score(self, data, answer):
        if len(answer) != 1 or answer not in data["S"]:
            raise FormatError("expected one character of S")
        return float(answer == data["reference"])
