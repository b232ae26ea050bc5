"""ThreeStringCommonSubsequenceCounting: distinct non-empty strings that are subsequences of three a/b strings."""

from functools import lru_cache

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import score_count


def first_occurrence(text: str) -> list[dict[str, int]]:
    """nxt[i][c]: first index >= i holding c, or None."""
    nxt: list[dict[str, int]] = [{} for _ in range(len(text) + 1)]
    for i in range(len(text) - 1, -1, -1):
        nxt[i] = dict(nxt[i + 1])
        nxt[i][text[i]] = i
    return nxt


def common_subsequences(texts: list[str]) -> int:
    """Distinct common subsequences: greedy-leftmost embedding makes each string one automaton path."""
    automata = [first_occurrence(t) for t in texts]

    @lru_cache(maxsize=None)
    def count(*positions: int) -> int:  # including the empty string
        total = 1
        for c in "ab":
            nexts = [nxt[p].get(c) for nxt, p in zip(automata, positions)]
            if None not in nexts:
                total += count(*(q + 1 for q in nexts))
        return total

    return count(0, 0, 0) - 1


class ThreeStringCommonSubsequenceCounting(Environment):
    name = "ThreeStringCommonSubsequenceCounting"

    def levels(self, difficulty):
        return [{"MAX_N": 3 + difficulty}]

    def sample(self, params, rng):
        texts = ["".join(rng.choice("ab") for _ in range(rng.randint(3, params["MAX_N"]))) for _ in range(3)]
        return {"strings": texts, "answer": common_subsequences(texts)}

    def prompt(self, data):
        a, b, c = data["strings"]
        return (
            f"You are given three strings: A = {a}, B = {b}, C = {c}.\n"
            "How many distinct non-empty strings are subsequences of all three? (A subsequence is obtained by "
            "deleting zero or more characters without changing the order of the rest; each distinct string counts "
            "once.)\n\n"
            "Output Format: a single integer, the count."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
