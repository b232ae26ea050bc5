"""MinimumIntervalCoverage: buy copies of priced intervals so that every point i is covered at least
NEED[i] times, at minimum cost (the "volunteer recruitment" min-cost-flow problem)."""

import networkx as nx

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment, FormatError

M_RATIO_TENTHS = (7, 9, *range(10, 41))  # M = floor(m * N) for m in {0.7, 0.9, 1.0, 1.1, ..., 4.0}


def coverage(n: int, intervals: list[list[int]], copies: list[int]) -> list[int]:
    """How many times each point 1..n is covered (index 0 unused)."""
    delta = [0] * (n + 2)
    for (low, high, _), count in zip(intervals, copies):
        delta[low] += count
        delta[high + 1] -= count
    covered, running = [0] * (n + 1), 0
    for point in range(1, n + 1):
        running += delta[point]
        covered[point] = running
    return covered


def cheapest_copies(need: list[int], intervals: list[list[int]]) -> tuple[int, list[int]]:
    """Differencing consecutive covering constraints (with slack variables) turns the LP into a flow:
    node i must send NEED[i] - NEED[i-1] units, an interval [l, r] is an arc l -> r+1 at its cost and
    the slack of point i is a free arc i+1 -> i. The constraint matrix is an interval matrix, so the
    min-cost flow is integral and optimal for the integer problem."""
    n = len(need) - 1  # need[0] is unused
    padded = [0, *need[1:], 0]
    graph = nx.MultiDiGraph()
    for point in range(1, n + 2):
        graph.add_node(point, demand=padded[point - 1] - padded[point])
    for index, (low, high, price) in enumerate(intervals):
        graph.add_edge(low, high + 1, key=index, weight=price)
    for point in range(1, n + 1):
        graph.add_edge(point + 1, point, key="slack", weight=0)
    flow = nx.min_cost_flow(graph)
    copies = [flow[low][high + 1][index] for index, (low, high, _) in enumerate(intervals)]
    return sum(c * price for c, (_, _, price) in zip(copies, intervals)), copies


class MinimumIntervalCoverage(Environment):
    name = "MinimumIntervalCoverage"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty), "M_ratio": tenths / 10} for tenths in M_RATIO_TENTHS]

    def sample(self, params, rng):
        n = params["N"]
        count = round(params["M_ratio"] * 10) * n // 10
        intervals = []
        for _ in range(count):
            low = rng.randint(1, n)
            high = rng.randint(low, n)
            intervals.append([low, high, rng.randint(1, 3 * (high - low + 1))])
        coverable = coverage(n, intervals, [1] * count)
        need = [0] + [rng.randint(0, n) if coverable[point] else 0 for point in range(1, n + 1)]
        best, copies = cheapest_copies(need, intervals)
        return {"N": n, "intervals": intervals, "NEED": need, "optimum": best, "reference": " ".join(map(str, copies))}

    def prompt(self, data):
        n, intervals = data["N"], data["intervals"]
        listing = "\n".join(f"Interval {j}: [{low}, {high}], cost {price}"
                            for j, (low, high, price) in enumerate(intervals))
        needs = " ".join(f"NEED[{i}]={data['NEED'][i]}" for i in range(1, n + 1))
        return (
            f"There are {n} points numbered 1 to {n} and {len(intervals)} intervals (numbered from 0); interval "
            f"[l, r] covers the points l, l+1, ..., r:\n{listing}\n\n"
            "You may take each interval any non-negative integer number of times; every copy costs the interval's "
            f"cost. Point i must be covered at least NEED[i] times in total, where {needs}.\n"
            "Minimize the total cost.\n\n"
            f"Output Format: a single line with {len(intervals)} non-negative integers separated by spaces: how many "
            "times you take interval 0, interval 1, and so on."
        )

    def score(self, data, answer):
        copies = parse_ints(answer)
        intervals = data["intervals"]
        if len(copies) != len(intervals):
            raise FormatError("wrong number of values")
        if any(c < 0 for c in copies):
            return INVALID
        covered = coverage(data["N"], intervals, copies)
        if any(covered[i] < data["NEED"][i] for i in range(1, data["N"] + 1)):
            return INVALID
        cost = sum(c * price for c, (_, _, price) in zip(copies, intervals))
        return minimization_reward(data["optimum"], cost, beta=5)
