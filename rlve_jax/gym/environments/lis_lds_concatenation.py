"""LIS_LDS_Concatenation: the longest subsequence that strictly rises and then strictly falls."""

from rlve_jax.gym.environments._common import INVALID, drop_last_tokens, fraction_reward, grow, parse_increasing_indices
from rlve_jax.gym.env import Environment


def is_bitonic(values: list[int]) -> bool:
    """Strictly increasing, then strictly decreasing (either part may be empty)."""
    peak = 0
    while peak + 1 < len(values) and values[peak] < values[peak + 1]:
        peak += 1
    return all(a > b for a, b in zip(values[peak:], values[peak + 1:]))


def longest_bitonic(values: list[int]) -> list[int]:
    """Indices of a longest bitonic subsequence: best rising run ending at i joined to best falling run from i."""
    n = len(values)
    rise_len, rise_prev = [1] * n, [-1] * n
    for i in range(n):
        for j in range(i):
            if values[j] < values[i] and rise_len[j] + 1 > rise_len[i]:
                rise_len[i], rise_prev[i] = rise_len[j] + 1, j
    fall_len, fall_next = [1] * n, [-1] * n
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if values[j] < values[i] and fall_len[j] + 1 > fall_len[i]:
                fall_len[i], fall_next[i] = fall_len[j] + 1, j
    peak = max(range(n), key=lambda i: rise_len[i] + fall_len[i])
    left, i = [], rise_prev[peak]
    while i >= 0:
        left.append(i)
        i = rise_prev[i]
    right, i = [], fall_next[peak]
    while i >= 0:
        right.append(i)
        i = fall_next[i]
    return left[::-1] + [peak] + right


class LIS_LDS_Concatenation(Environment):
    name = "LIS_LDS_Concatenation"

    def levels(self, difficulty):
        return [{"N": grow(5, lambda n: int(1.2 * n), difficulty)}]  # 5, 6, 7, 8, 9, 10, 12, ...

    def sample(self, params, rng):
        values = [rng.randint(0, 100000) for _ in range(params["N"])]
        return {"A": values, "best": len(longest_bitonic(values))}

    def prompt(self, data):
        return (
            f"You are given an array A of length {len(data['A'])} (indexed from 0):\n"
            f"{' '.join(map(str, data['A']))}\n"
            "Choose indices i_1 < i_2 < ... < i_k so that the chosen values first strictly increase and then "
            "strictly decrease: A[i_1] < ... < A[i_t] > A[i_(t+1)] > ... > A[i_k] for some t (either part may be "
            "empty). Make k as large as possible.\n\n"
            "Output Format: a single line with the chosen indices in increasing order, separated by spaces."
        )

    def score(self, data, answer):
        indices = parse_increasing_indices(answer, len(data["A"]))
        if not indices or not is_bitonic([data["A"][i] for i in indices]):
            return INVALID
        return fraction_reward(len(indices), data["best"], 5)

    def reference(self, problem):
        return " ".join(map(str, longest_bitonic(problem.data["A"])))

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)  # one index fewer
