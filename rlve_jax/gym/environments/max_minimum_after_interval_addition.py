"""MaxMinimum_AfterIntervalAddition: apply exactly K of M given interval additions (+A on a range)
so that the minimum of the array becomes as large as possible."""

import heapq

from rlve_jax.gym.environments._common import DropLastTokenPerturbation, maximization_reward, parse_distinct_indices


def intervals_reaching(values: list[int], intervals: list[list[int]], k: int, add: int, goal: int) -> list[int] | None:
    """At most k intervals lifting every value to >= goal, or None. Exact greedy: sweep left to right; a
    position still below the goal takes, among the unused intervals covering it, those reaching farthest
    right (any solution can be exchanged to these)."""
    n = len(values)
    by_start = sorted(range(len(intervals)), key=lambda j: intervals[j][0])
    ending = [0] * (n + 1)
    available: list[tuple[int, int]] = []  # (-right end, interval)
    chosen, active, next_interval = [], 0, 0
    for i in range(n):
        active -= ending[i]
        while next_interval < len(by_start) and intervals[by_start[next_interval]][0] - 1 <= i:
            j = by_start[next_interval]
            heapq.heappush(available, (-(intervals[j][1] - 1), j))
            next_interval += 1
        while values[i] + active * add < goal:
            while available and -available[0][0] < i:
                heapq.heappop(available)
            if not available or len(chosen) == k:
                return None
            right, j = heapq.heappop(available)
            chosen.append(j)
            active += 1
            ending[-right + 1] += 1
    return chosen


def best_intervals(values: list[int], intervals: list[list[int]], k: int, add: int) -> list[int]:
    """Binary search on the reachable minimum, then pad to exactly k intervals (more additions never hurt)."""
    low, high = min(values), min(values) + k * add
    chosen = intervals_reaching(values, intervals, k, add, low)
    while low < high:
        middle = (low + high + 1) // 2
        attempt = intervals_reaching(values, intervals, k, add, middle)
        if attempt is None:
            high = middle - 1
        else:
            low, chosen = middle, attempt
    unused = [j for j in range(len(intervals)) if j not in chosen]
    return sorted(chosen + unused[:k - len(chosen)])


def minimum_after(values: list[int], intervals: list[list[int]], chosen: list[int], add: int) -> int:
    delta = [0] * (len(values) + 1)
    for j in chosen:
        delta[intervals[j][0] - 1] += add
        delta[intervals[j][1]] -= add
    running, lowest = 0, None
    for v, d in zip(values, delta):
        running += d
        lowest = v + running if lowest is None else min(lowest, v + running)
    return lowest


class MaxMinimum_AfterIntervalAddition(DropLastTokenPerturbation):
    name = "MaxMinimum_AfterIntervalAddition"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        n, m = rng.randint(3, top), rng.randint(3, top)
        k, add = rng.randint(2, m - 1), rng.randint(1, top)
        values = [rng.randint(1, top) for _ in range(n)]
        intervals = [sorted((rng.randint(1, n), rng.randint(1, n))) for _ in range(m)]
        chosen = best_intervals(values, intervals, k, add)
        return {"values": values, "intervals": intervals, "K": k, "add": add,
                "optimum": minimum_after(values, intervals, chosen, add),
                "reference": " ".join(str(j + 1) for j in chosen)}

    def prompt(self, data):
        values, intervals, k, add = data["values"], data["intervals"], data["K"], data["add"]
        n = len(values)
        return (
            f"You are given an array of {n} integers (positions 1 to {n}): {' '.join(map(str, values))}\n"
            f"There are {len(intervals)} intervals, numbered from 1:\n"
            + "\n".join(f"interval {j}: [{l}, {r}]" for j, (l, r) in enumerate(intervals, start=1))
            + f"\nChoose exactly {k} distinct intervals; each chosen interval [l, r] adds {add} to every element "
            "at positions l..r. Maximize the minimum element of the resulting array.\n\n"
            f"Output Format: a single line with the {k} chosen interval numbers (1-based) separated by spaces."
        )

    def score(self, data, answer):
        intervals = data["intervals"]
        chosen = parse_distinct_indices(answer, len(intervals), base=1)
        if chosen is None or len(chosen) != data["K"]:
            return -0.5
        return maximization_reward(minimum_after(data["values"], intervals, chosen, data["add"]), data["optimum"], beta=5)
