"""FBI_BinaryTree: postorder labels (F/B/I) of the halving tree of a binary string of length 2^N."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, positional_match_reward


def fbi_postorder(bits: str) -> str:
    """B for all zeros, I for all ones, F for mixed; children are the two halves."""
    label = "B" if "1" not in bits else "I" if "0" not in bits else "F"
    if len(bits) == 1:
        return label
    half = len(bits) // 2
    return fbi_postorder(bits[:half]) + fbi_postorder(bits[half:]) + label


class FBI_BinaryTree(Environment):
    name = "FBI_BinaryTree"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        bits = [rng.choice("01")]
        while len(bits) < 2 ** params["N"]:
            bits.append(bits[-1] if rng.random() < 0.7 else "10"[int(bits[-1])])
        bits = "".join(bits)
        return {"bits": bits, "reference": fbi_postorder(bits)}

    def prompt(self, data):
        return (
            "Strings of 0s and 1s are classified into three types: a B-string contains only 0s, an I-string "
            "contains only 1s, and an F-string contains both.\n"
            "The FBI tree of a string S of length 2^N is built recursively: the root is labelled with the type "
            "(F, B or I) of S; if S has length greater than 1, split it into two halves S1 (first half) and S2 "
            "(second half), and the left and right subtrees are the FBI trees of S1 and S2.\n\n"
            f"Build the FBI tree of S = {data['bits']} (length {len(data['bits'])}) and give its postorder "
            "traversal (left subtree, right subtree, then the root).\n\n"
            "Output Format: a single string of the letters F, B and I, with no separators."
        )

    def score(self, data, answer):
        # The default positional-match reward; the original's broken non-default branch
        # (rlve_reference.md, known bug 2) is not reproduced.
        letters = "".join(answer.split())
        gold = data["reference"]
        if len(letters) != len(gold) or any(ch not in "FBI" for ch in letters):
            return INVALID
        return positional_match_reward(letters, gold, 5)

    def perturb(self, problem, answer):
        return {"F": "B", "B": "I", "I": "F"}[answer[0]] + answer[1:]
