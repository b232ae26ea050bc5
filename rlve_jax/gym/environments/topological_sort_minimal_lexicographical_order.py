"""TopologicalSort_MinimalLexicographicalOrder (held-out): the topological order placing 0 earliest, then 1, ..."""

import heapq

from rlve_jax.gym.environments._common import (
    INVALID, fraction_reward, grow_1p1, is_permutation, parse_ints, positional_match_reward,
)
from rlve_jax.gym.env import Environment


def earliest_small_order(n: int, constraints: list[list[int]]) -> list[int]:
    """Reverse of the lexicographically largest topological order of the reversed graph."""
    successors_reversed: list[list[int]] = [[] for _ in range(n)]
    indegree = [0] * n
    for before, after in constraints:  # reversed edge: after -> before
        successors_reversed[after].append(before)
        indegree[before] += 1
    heap = [-v for v in range(n) if indegree[v] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        v = -heapq.heappop(heap)
        order.append(v)
        for u in successors_reversed[v]:
            indegree[u] -= 1
            if indegree[u] == 0:
                heapq.heappush(heap, -u)
    return order[::-1]


class TopologicalSort_MinimalLexicographicalOrder(Environment):
    name = "TopologicalSort_MinimalLexicographicalOrder"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        hidden = list(range(n))
        rng.shuffle(hidden)
        constraints = []
        for i, v in enumerate(hidden):
            for u in rng.sample(hidden[:i], rng.randint(0, min(3, i))):
                constraints.append([u, v])
        rng.shuffle(constraints)
        return {"N": n, "constraints": constraints,
                "reference": " ".join(map(str, earliest_small_order(n, constraints)))}

    def prompt(self, data):
        n = data["N"]
        constraints = "\n".join(f"{u} must come before {v}" for u, v in data["constraints"]) or "(no constraints)"
        return (
            f"Arrange the numbers 0 to {n - 1} in a sequence that satisfies all of the following constraints:\n"
            f"{constraints}\n\n"
            "Among all valid sequences, choose the one that places 0 as early as possible; among those, the one "
            "that places 1 as early as possible; and so on for 2, 3, ... (this is not the same as the "
            "lexicographically smallest sequence).\n\n"
            f"Output Format: a single line with the {n} numbers separated by spaces."
        )

    def score(self, data, answer):
        order = parse_ints(answer)
        n = data["N"]
        if not is_permutation(order, n):
            return INVALID
        position = {v: i for i, v in enumerate(order)}
        constraints = data["constraints"]
        satisfied = sum(position[u] < position[v] for u, v in constraints)
        reward = 0.5 * fraction_reward(satisfied, len(constraints), beta=5)
        if satisfied == len(constraints):
            reward += 0.5 * positional_match_reward(order, parse_ints(data["reference"]), beta=5)
        return reward
