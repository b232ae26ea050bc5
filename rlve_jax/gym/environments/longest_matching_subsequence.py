"""Longest_MatchingSubsequence: a subsequence B of A with as many positions j as possible where B[j] = j."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_increasing_indices
from rlve_jax.gym.env import Environment


def matches(values: list[int]) -> int:
    return sum(v == j for j, v in enumerate(values, start=1))


def best_subsequence(values: list[int]) -> list[int]:
    """DP over (prefix of A, length of B): best[i][k] = most matches with k elements taken from A[:i]."""
    n = len(values)
    best = [[-1] * (n + 1) for _ in range(n + 1)]
    best[0][0] = 0
    for i, v in enumerate(values):
        for k in range(i + 1):
            if best[i][k] < 0:
                continue
            best[i + 1][k] = max(best[i + 1][k], best[i][k])
            best[i + 1][k + 1] = max(best[i + 1][k + 1], best[i][k] + (v == k + 1))
    k = max(range(n + 1), key=lambda length: best[n][length])
    chosen = []
    for i in range(n, 0, -1):
        if best[i][k] != best[i - 1][k]:  # A[i-1] must be the k-th element of B
            chosen.append(i)
            k -= 1
    return chosen[::-1]


class Longest_MatchingSubsequence(Environment):
    name = "Longest_MatchingSubsequence"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            values = [rng.randint(1, n) for _ in range(n)]
            if 1 in values:
                return {"A": values, "best": matches([values[i - 1] for i in best_subsequence(values)])}

    def prompt(self, data):
        return (
            f"You are given an array A of length {len(data['A'])} (indexed from 1):\n"
            f"{' '.join(map(str, data['A']))}\n"
            "Choose indices i_1 < i_2 < ... < i_k and form B = A[i_1], A[i_2], ..., A[i_k] (B is indexed from 1). "
            "Maximize the number of positions j with B[j] = j.\n\n"
            "Output Format: a single line with the chosen indices i_1 ... i_k (1-based, increasing), separated by "
            "spaces."
        )

    def score(self, data, answer):
        indices = parse_increasing_indices(answer, len(data["A"]), base=1)
        if indices is None:
            return INVALID
        return fraction_reward(matches([data["A"][i] for i in indices]), data["best"], 5)

    def reference(self, problem):
        return " ".join(map(str, best_subsequence(problem.data["A"])))

    def perturb(self, problem, answer):
        return ""  # no element chosen: no match
