"""PalindromePartitionCounting (held-out): ways to cut a binary string into palindromic pieces."""

from rlve_jax.gym.environments._common import grow_1p1, perturb_count, score_count
from rlve_jax.gym.env import Environment

ZERO_PROBABILITIES = tuple(round(0.1 * i, 1) for i in range(1, 10))


def count_partitions(s: str) -> int:
    """ways[i] = number of partitions of s[:i]; expand around centers to find every palindrome."""
    n = len(s)
    ends_at: list[list[int]] = [[] for _ in range(n)]  # starts of palindromes ending at each index
    for center in range(2 * n - 1):
        left, right = center // 2, (center + 1) // 2
        while left >= 0 and right < n and s[left] == s[right]:
            ends_at[right].append(left)
            left, right = left - 1, right + 1
    ways = [1] + [0] * n
    for end in range(n):
        ways[end + 1] = sum(ways[start] for start in ends_at[end])
    return ways[n]


class PalindromePartitionCounting(Environment):
    name = "PalindromePartitionCounting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty), "zero_probability": p} for p in ZERO_PROBABILITIES]

    def sample(self, params, rng):
        s = "".join("0" if rng.random() < params["zero_probability"] else "1" for _ in range(params["N"]))
        return {"S": s, "reference": str(count_partitions(s))}

    def prompt(self, data):
        return (
            f"Consider the binary string S = {data['S']}. In how many ways can S be cut into one or more "
            "consecutive non-empty pieces such that every piece is a palindrome (reads the same forwards and "
            "backwards)? Two ways are different if they cut at different positions.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
