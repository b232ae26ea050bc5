"""CleaningUp (USACO "Cleaning Up"): cut an array into consecutive batches minimizing the sum of
squared numbers of distinct values per batch."""

from rlve_jax.gym.environments._common import minimization_reward, parse_ints
from rlve_jax.gym.env import Environment, FormatError


def batches_cost(array: list[int], ends: list[int]) -> int:
    starts = [0] + ends[:-1]
    return sum(len(set(array[s:e])) ** 2 for s, e in zip(starts, ends))


def best_batches(array: list[int]) -> list[int]:
    """Exact O(N^2) DP over the last cut; returns the 1-based batch ends."""
    n = len(array)
    best, previous = [0] + [n * n + 1] * n, [0] * (n + 1)
    for j in range(1, n + 1):
        seen: set[int] = set()
        for i in range(j - 1, -1, -1):  # last batch is array[i:j]
            seen.add(array[i])
            if best[i] + len(seen) ** 2 < best[j]:
                best[j], previous[j] = best[i] + len(seen) ** 2, i
    ends, j = [], n
    while j:
        ends.append(j)
        j = previous[j]
    return ends[::-1]


class CleaningUp(Environment):
    name = "CleaningUp"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        array: list[int] = []
        while len(array) < n:  # segments whose values come from small ranges
            low, width = rng.randint(1, n), rng.randint(0, 2)
            array += [rng.randint(low, low + width) for _ in range(rng.randint(1, n - len(array)))]
        ends = best_batches(array)
        return {"array": array, "optimum": batches_cost(array, ends), "reference": " ".join(map(str, ends))}

    def prompt(self, data):
        array = data["array"]
        n = len(array)
        return (
            f"You are given an array A of {n} integers (positions 1 to {n}): {' '.join(map(str, array))}\n"
            "Split it into one or more consecutive, non-empty batches covering the whole array. A batch that "
            "contains k distinct values costs k * k. Minimize the total cost of all batches.\n\n"
            "Output Format: a single line with the end positions of the batches in increasing order, separated "
            f"by spaces (1-based; the last one must be {n}). For example, `2 {n}` means the batches are "
            f"A[1..2] and A[3..{n}]."
        )

    def score(self, data, answer):
        ends, n = parse_ints(answer), len(data["array"])
        if not ends:
            raise FormatError("empty answer")  # the original: an empty answer is a format error (-1)
        if ends[-1] != n or any(b <= a for a, b in zip([0] + ends, ends)):
            return -0.5
        return minimization_reward(data["optimum"], batches_cost(data["array"], ends), beta=5)
