"""MinConversionToCycleCost: every vertex points to one vertex; re-point some of them (vertex i costs
C[i]) so that the pointers form a single cycle through all vertices, at minimum total cost."""

from rlve_jax.gym.environments._common import functional_cycles, grow_1p1, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def is_single_cycle(successor: list[int]) -> bool:
    n, v, steps = len(successor), 0, 0
    while True:
        v, steps = successor[v], steps + 1
        if v == 0 or steps > n:
            return v == 0 and steps == n


def cheapest_cycle(successor: list[int], costs: list[int]) -> list[int]:
    """Exact. Kept pointers must form vertex-disjoint paths (unless already one big cycle), which can then
    be chained into a cycle by re-pointing the path ends. Every vertex keeps at most one incoming pointer,
    the costliest; each cycle of the pointer graph must lose one of its pointers, so one of its vertices
    falls back to its costliest pointer from off the cycle (or none), choosing the cheapest such loss."""
    n = len(successor)
    if is_single_cycle(successor):
        return list(successor)
    cycles = functional_cycles(successor)
    on_cycle = [False] * n
    for cycle in cycles:
        for v in cycle:
            on_cycle[v] = True
    incoming: list[list[int]] = [[] for _ in range(n)]
    for u, v in enumerate(successor):
        incoming[v].append(u)
    # a pointer u -> v lies on a cycle iff u does; on equal costs prefer keeping one off the cycles
    kept_into = [max(into, key=lambda u: (costs[u], not on_cycle[u]), default=-1) for into in incoming]
    off_cycle_best = [max((u for u in into if not on_cycle[u]), key=costs.__getitem__, default=-1) for into in incoming]

    def loss(v: int) -> int:  # giving up the cycle pointer into v for the best one from off the cycle (or none)
        return costs[kept_into[v]] - (costs[off_cycle_best[v]] if off_cycle_best[v] >= 0 else 0)

    for cycle in cycles:
        if all(on_cycle[kept_into[v]] for v in cycle):
            v = min(cycle, key=loss)
            kept_into[v] = off_cycle_best[v]
    kept = [False] * n
    for v in range(n):
        if kept_into[v] >= 0:
            kept[kept_into[v]] = True
    starts = [v for v in range(n) if kept_into[v] < 0]
    ends = []
    for start in starts:
        v = start
        while kept[v]:
            v = successor[v]
        ends.append(v)
    result = list(successor)
    for i, end in enumerate(ends):
        result[end] = starts[(i + 1) % len(starts)]
    return result


def conversion_cost(successor: list[int], costs: list[int], result: list[int]) -> int:
    return sum(c for old, new, c in zip(successor, result, costs) if old != new)


class MinConversionToCycleCost(Environment):
    name = "MinConversionToCycleCost"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        successor = [rng.randint(0, n - 1) for _ in range(n)]
        costs = [rng.randint(1, n) for _ in range(n)]
        result = cheapest_cycle(successor, costs)
        return {"A": successor, "C": costs, "optimum": conversion_cost(successor, costs, result),
                "reference": " ".join(map(str, result))}

    def prompt(self, data):
        successor, costs = data["A"], data["C"]
        n = len(successor)
        return (
            f"There are {n} vertices numbered 0 to {n - 1}; vertex i has a single outgoing edge to vertex A[i], and "
            "changing A[i] (to any vertex) costs C[i]:\n"
            + "\n".join(f"A[{i}]={a} C[{i}]={c}" for i, (a, c) in enumerate(zip(successor, costs)))
            + f"\nChange some of the A[i] so that the edges form one single cycle through all {n} vertices (starting "
            f"at vertex 0 and following the edges visits every vertex exactly once before returning to 0). Minimize "
            "the total cost of the changed entries.\n\n"
            f"Output Format: a single line with the final A[0] A[1] ... A[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        successor, costs = data["A"], data["C"]
        result = parse_ints(answer)
        if len(result) != len(successor) or any(not 0 <= v < len(successor) for v in result):
            return -0.5
        if not is_single_cycle(result):
            return -0.2
        return minimization_reward(data["optimum"], conversion_cost(successor, costs, result), beta=3)
