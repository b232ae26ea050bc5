"""WeightedLIS: indices with non-decreasing A values maximising the sum of their B weights."""

from rlve_jax.gym.environments._common import (
    INVALID, drop_last_tokens, fraction_reward, grow_1p1, parse_increasing_indices,
)
from rlve_jax.gym.env import Environment


def heaviest_chain(a: list[int], b: list[int]) -> list[int]:
    """Quadratic DP: best[i] = heaviest chain ending at i; follow the predecessors back."""
    n = len(a)
    best, previous = list(b), [-1] * n
    for i in range(n):
        for j in range(i):
            if a[j] <= a[i] and best[j] + b[i] > best[i]:
                best[i], previous[i] = best[j] + b[i], j
    chain, i = [], max(range(n), key=lambda i: best[i])
    while i >= 0:
        chain.append(i)
        i = previous[i]
    return chain[::-1]


class WeightedLIS(Environment):
    name = "WeightedLIS"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        a = [rng.randint(0, n) for _ in range(n)]
        b = [rng.randint(1, n) for _ in range(n)]
        return {"A": a, "B": b, "best": sum(b[i] for i in heaviest_chain(a, b))}

    def prompt(self, data):
        return (
            f"You are given two arrays of length {len(data['A'])} (indexed from 0):\n"
            f"A: {' '.join(map(str, data['A']))}\n"
            f"B: {' '.join(map(str, data['B']))}\n"
            "Choose indices i_1 < i_2 < ... < i_k with A[i_1] <= A[i_2] <= ... <= A[i_k] so that "
            "B[i_1] + ... + B[i_k] is as large as possible.\n\n"
            "Output Format: a single line with the chosen indices in increasing order, separated by spaces."
        )

    def score(self, data, answer):
        indices = parse_increasing_indices(answer, len(data["A"]))
        if indices is None or any(data["A"][i] > data["A"][j] for i, j in zip(indices, indices[1:])):
            return INVALID
        return fraction_reward(sum(data["B"][i] for i in indices), data["best"], 5)

    def reference(self, problem):
        return " ".join(map(str, heaviest_chain(problem.data["A"], problem.data["B"])))

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)  # one index fewer: a lighter chain
