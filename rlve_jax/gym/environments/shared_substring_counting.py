"""SharedSubstringCounting: count pairs of equal non-empty substrings, one taken from S and one from T."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def shared_substring_pairs(s: str, t: str) -> int:
    """Sum over start pairs (i, j) of the longest common prefix of s[i:] and t[j:]."""
    lcp = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    total = 0
    for i in range(len(s) - 1, -1, -1):
        for j in range(len(t) - 1, -1, -1):
            if s[i] == t[j]:
                lcp[i][j] = lcp[i + 1][j + 1] + 1
                total += lcp[i][j]
    return total


class SharedSubstringCounting(Environment):
    name = "SharedSubstringCounting"

    def levels(self, difficulty):
        return [{"MAX_LEN": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        s, t = ("".join(rng.choice("ab") for _ in range(rng.randint(2, params["MAX_LEN"]))) for _ in range(2))
        return {"S": s, "T": t, "answer": shared_substring_pairs(s, t)}

    def prompt(self, data):
        return (
            f"You are given two strings S = {data['S']} and T = {data['T']}.\n"
            "Count the tuples (lS, rS, lT, rT) with 0 <= lS < rS <= |S| and 0 <= lT < rT <= |T| such that the "
            "substring S[lS..rS-1] equals the substring T[lT..rT-1] (positions start at 0).\n\n"
            "Output Format: a single integer, the count."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
