"""VirusSynthesis: fewest operations (add a letter at an end, or append the reversed copy) to build a target."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, parse_int


def build_cost(text: str, memo: dict[str, int] | None = None) -> int:
    """The last doubling makes an even palindrome Q inside the text (later steps only add letters); before it,
    the string was one half of Q (or its mirror image, which costs the same)."""
    memo = {} if memo is None else memo
    if text not in memo:
        best = len(text)
        for left in range(len(text)):
            for right in range(left + 2, len(text) + 1, 2):
                piece = text[left:right]
                if piece == piece[::-1]:
                    best = min(best, build_cost(piece[:len(piece) // 2], memo) + 1 + len(text) - len(piece))
        memo[text] = best
    return memo[text]


class VirusSynthesis(Environment):
    name = "VirusSynthesis"

    def levels(self, difficulty):
        return [{"loose_MAX_N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        text = rng.choice("01")
        while True:  # random operations while the result stays within the loose bound
            kind = rng.randrange(4)
            grown = (rng.choice("01") + text, text + rng.choice("01"), text[::-1] + text, text + text[::-1])[kind]
            if len(grown) > params["loose_MAX_N"]:
                break
            text = grown
        return {"target": text, "answer": build_cost(text)}

    def prompt(self, data):
        return (
            "Start from an empty string. In one operation you may:\n"
            "1. add one character (0 or 1) at the beginning or at the end of the string, or\n"
            "2. append a reversed copy of the string to its beginning or to its end (s becomes reverse(s) + s or "
            "s + reverse(s)).\n"
            f"What is the minimum number of operations needed to obtain exactly the string {data['target']}?\n\n"
            "Output Format: a single integer, the minimum number of operations."
        )

    def score(self, data, answer):
        return float(parse_int(answer) == data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
