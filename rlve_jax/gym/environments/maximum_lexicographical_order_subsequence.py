"""MaximumLexicographicalOrderSubsequence: the lexicographically largest subsequence of length K."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_ints, positional_match_reward


def largest_subsequence(values: list[int], k: int) -> list[int]:
    """Greedy stack: drop a smaller top while enough elements remain to reach length k."""
    stack = []
    for i, v in enumerate(values):
        while stack and stack[-1] < v and len(stack) - 1 + len(values) - i >= k:
            stack.pop()
        if len(stack) < k:
            stack.append(v)
    return stack


def is_subsequence(candidate: list[int], values: list[int]) -> bool:
    remaining = iter(values)
    return all(any(v == c for v in remaining) for c in candidate)


class MaximumLexicographicalOrderSubsequence(Environment):
    name = "MaximumLexicographicalOrderSubsequence"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        k = rng.randint(2, n - 1)
        return {"A": values, "K": k, "gold": largest_subsequence(values, k)}

    def prompt(self, data):
        return (
            f"You are given an array A of length {len(data['A'])}: {' '.join(map(str, data['A']))}\n"
            f"Among all subsequences of A with exactly {data['K']} elements (keeping the original order), find "
            "the lexicographically largest one.\n\n"
            f"Output Format: a single line with the {data['K']} values of the subsequence, separated by spaces."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != data["K"] or not is_subsequence(values, data["A"]):
            return INVALID
        return positional_match_reward(values, data["gold"], 5)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))

