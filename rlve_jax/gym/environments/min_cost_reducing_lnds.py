"""MinCostReducingLNDS (after SDOI 2014 "LIS"): erase elements, each with its own cost, so that the
longest non-decreasing subsequence gets shorter, at minimum total cost."""

import networkx as nx

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, grow_1p1, longest_non_decreasing, minimization_reward, parse_distinct_indices,
)


def cheapest_erasure(values: list[int], costs: list[int]) -> list[int]:
    """Exact: every longest chain must lose an element, so take a minimum vertex cut of the layered graph
    of longest non-decreasing chains (each element split into in -> out with its cost)."""
    n = len(values)
    ending = [1] * n
    for i in range(n):
        ending[i] = 1 + max((ending[j] for j in range(i) if values[j] <= values[i]), default=0)
    starting = [1] * n
    for i in range(n - 1, -1, -1):
        starting[i] = 1 + max((starting[j] for j in range(i + 1, n) if values[i] <= values[j]), default=0)
    longest = max(ending)
    on_chain = [ending[i] + starting[i] - 1 == longest for i in range(n)]
    graph = nx.DiGraph()
    source, sink = -1, -2
    for i in range(n):
        if not on_chain[i]:
            continue
        graph.add_edge(2 * i, 2 * i + 1, capacity=costs[i])
        if ending[i] == 1:
            graph.add_edge(source, 2 * i)
        if ending[i] == longest:
            graph.add_edge(2 * i + 1, sink)
        for j in range(i + 1, n):
            if on_chain[j] and values[i] <= values[j] and ending[j] == ending[i] + 1:
                graph.add_edge(2 * i + 1, 2 * j)
    _, (source_side, _) = nx.minimum_cut(graph, source, sink)  # edges without capacity are unbounded
    return [i for i in range(n) if on_chain[i] and 2 * i in source_side and 2 * i + 1 not in source_side]


class MinCostReducingLNDS(DropLastTokenPerturbation):
    name = "MinCostReducingLNDS"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, 2 * n) for _ in range(n)]
        costs = [rng.randint(1, n) for _ in range(n)]
        erased = cheapest_erasure(values, costs)
        return {"A": values, "B": costs, "optimum": sum(costs[i] for i in erased),
                "reference": " ".join(map(str, erased))}

    def prompt(self, data):
        values, costs = data["A"], data["B"]
        n = len(values)
        return (
            f"You are given two arrays A and B of length {n} (indices 0 to {n - 1}):\n"
            f"A: {' '.join(map(str, values))}\nB: {' '.join(map(str, costs))}\n"
            "Erase some elements of A (erasing A[i] costs B[i]) so that the length of the longest non-decreasing "
            "subsequence of the remaining elements is strictly smaller than that of the original A. Minimize the "
            "total cost.\n\n"
            "Output Format: a single line with the indices of the erased elements separated by spaces."
        )

    def score(self, data, answer):
        values, costs = data["A"], data["B"]
        erased = parse_distinct_indices(answer, len(values))
        if erased is None:
            return -0.5
        gone = set(erased)
        remaining = [v for i, v in enumerate(values) if i not in gone]
        if longest_non_decreasing(remaining) >= longest_non_decreasing(values):
            return -0.2
        return minimization_reward(data["optimum"], sum(costs[i] for i in erased), beta=3)
