"""MinimumUnconflictedGridKMax: pick one entry per row, all in distinct columns, so that the K-th largest
picked value is as small as possible."""

from rlve_jax.gym.environments._common import (
    INVALID, FlowNetwork, distinct_in_range, drop_last_tokens, grid_text, grow_1p1, minimization_reward, parse_ints,
)
from rlve_jax.gym.env import Environment


def kth_largest(values: list[int], k: int) -> int:
    return sorted(values, reverse=True)[k - 1]


def matching_within(matrix: list[list[int]], limit: int) -> dict[int, int]:
    """A maximum matching row -> column using only entries <= limit (unit-capacity max flow)."""
    n, m = len(matrix), len(matrix[0])
    source, sink = n + m, n + m + 1
    network = FlowNetwork(n + m + 2)
    pairs = [(i, j) for i in range(n) for j in range(m) if matrix[i][j] <= limit]
    arcs = [network.add_arc(i, n + j, 1) for i, j in pairs]
    for i in range(n):
        network.add_arc(source, i, 1)
    for j in range(m):
        network.add_arc(n + j, sink, 1)
    network.max_flow(source, sink)
    return {i: j for arc, (i, j) in zip(arcs, pairs) if network.capacity[arc] == 0}


def smallest_kth_largest(matrix: list[list[int]], k: int) -> tuple[int, list[int]]:
    """The K-th largest of N picks is <= x iff N-K+1 picks can be <= x, i.e. a matching of that size
    among entries <= x (the other rows then take any unused columns, as M >= N). Binary search on x."""
    n, m = len(matrix), len(matrix[0])
    candidates = sorted({v for row in matrix for v in row})
    low, high = 0, len(candidates) - 1
    while low < high:
        middle = (low + high) // 2
        if len(matching_within(matrix, candidates[middle])) >= n - k + 1:
            high = middle
        else:
            low = middle + 1
    matched = matching_within(matrix, candidates[low])
    free = iter(sorted(set(range(m)) - set(matched.values())))
    columns = [matched[i] if i in matched else next(free) for i in range(n)]
    return kth_largest([matrix[i][c] for i, c in enumerate(columns)], k), columns


class MinimumUnconflictedGridKMax(Environment):
    name = "MinimumUnconflictedGridKMax"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        n = rng.randint(3, top)
        m = rng.randint(n, top)
        k = rng.randint(1, n)
        matrix = [[rng.randint(1, n * m) for _ in range(m)] for _ in range(n)]
        best, columns = smallest_kth_largest(matrix, k)
        return {"matrix": matrix, "K": k, "optimum": best, "reference": " ".join(str(c + 1) for c in columns)}

    def prompt(self, data):
        matrix, k = data["matrix"], data["K"]
        n, m = len(matrix), len(matrix[0])
        return (
            f"You are given a matrix with {n} rows and {m} columns (both 1-indexed):\n"
            + grid_text(matrix) + "\n\n"
            f"For every row i choose a column p[i] so that the {n} chosen columns are pairwise distinct. Among the "
            f"{n} chosen values (row i, column p[i]), consider the {k}-th largest (counting equal values "
            "separately). Make it as small as possible.\n\n"
            f"Output Format: a single line with p[1], ..., p[{n}] (1-based column indices) separated by spaces."
        )

    def score(self, data, answer):
        columns = parse_ints(answer)
        matrix = data["matrix"]
        if len(columns) != len(matrix) or not distinct_in_range(columns, 1, len(matrix[0])):
            return INVALID
        value = kth_largest([matrix[i][c - 1] for i, c in enumerate(columns)], data["K"])
        return minimization_reward(data["optimum"], value, beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
