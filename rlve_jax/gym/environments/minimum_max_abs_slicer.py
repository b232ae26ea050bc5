"""Minimum_MaxAbsSlicer: split a signed permutation into M consecutive batches minimizing the largest
|batch sum|; among optimal splits the answer (the values at the batch ends) must be lexicographically smallest."""

from itertools import accumulate

from rlve_jax.gym.environments._common import (
    INVALID, grow_1p1, minimization_reward, parse_ints, positional_match_reward,
)
from rlve_jax.gym.environments._segmentation import batch_sums, min_max_split
from rlve_jax.gym.env import Environment


def smallest_end_values(values: list[int], weights: list[int], batches: int, limit: int) -> list[int]:
    """The lexicographically smallest sequence of values[end] over splits into `batches` batches whose
    |sum| is at most limit: choose ends greedily, keeping a completion of the suffix possible."""
    n = len(weights)
    prefix = list(accumulate(weights, initial=0))
    # completable[k][i]: items i.. can be split into k batches within the limit
    completable = [[False] * (n + 1) for _ in range(batches + 1)]
    completable[0][n] = True
    for k in range(1, batches + 1):
        for i in range(n):
            completable[k][i] = any(completable[k - 1][e] and abs(prefix[e] - prefix[i]) <= limit
                                    for e in range(i + 1, n + 1))
    chosen, start = [], 0
    for k in range(batches, 0, -1):
        end = min((e for e in range(start + 1, n + 1)
                   if completable[k - 1][e] and abs(prefix[e] - prefix[start]) <= limit),
                  key=lambda e: values[e - 1])
        chosen.append(values[end - 1])
        start = end
    return chosen


class Minimum_MaxAbsSlicer(Environment):
    name = "Minimum_MaxAbsSlicer"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        batches = rng.randint(3, n - 1)
        values = list(range(1, n + 1))
        rng.shuffle(values)
        positive_bias = rng.random()
        signs = [1 if rng.random() < positive_bias else -1 for _ in range(n)]
        weights = [a * b for a, b in zip(values, signs)]
        best, _ = min_max_split(weights, batches)
        gold = smallest_end_values(values, weights, batches, best)
        return {"A": values, "B": signs, "M": batches, "optimum": best, "gold": gold,
                "reference": " ".join(map(str, gold))}

    def prompt(self, data):
        n, m = len(data["A"]), data["M"]
        return (
            f"You are given two arrays of length {n} (0-indexed). A is a permutation of 1..{n}:\n"
            f"A: {' '.join(map(str, data['A']))}\n"
            f"B: {' '.join(map(str, data['B']))}\n"
            f"The weight of position i is A[i] * B[i]. Split the positions 0..{n - 1} into exactly {m} non-empty "
            "batches of consecutive positions. The value of a batch is the absolute value of the sum of the "
            "weights in it. Minimize the largest batch value. Among all splits that achieve the minimum, choose "
            "the one whose sequence of A-values at the batch ends (A[end_1], ..., A[end_M], where end_k is the "
            "last position of batch k) is lexicographically smallest.\n\n"
            f"Output Format: a single line with the {m} values A[end_1] A[end_2] ... A[end_{m}] separated by "
            f"spaces (so the last one is A[{n - 1}] = {data['A'][-1]})."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        position = {v: i for i, v in enumerate(data["A"])}
        if len(chosen) != data["M"] or any(v not in position for v in chosen):
            return INVALID
        ends = [position[v] + 1 for v in chosen]
        if ends[-1] != len(data["A"]) or any(a >= b for a, b in zip(ends, ends[1:])):
            return INVALID
        weights = [a * b for a, b in zip(data["A"], data["B"])]
        largest = max(abs(s) for s in batch_sums(weights, ends))
        reward = 0.5 * minimization_reward(data["optimum"], largest, beta=5)
        if largest == data["optimum"]:
            reward += 0.5 * positional_match_reward(chosen, data["gold"], beta=5)
        return reward
