"""Shared pieces of the optimization batch B: answer parsers (batch ends, pairs), the exact solvers
several environments need (segmentation DPs, the assignment problem, Dinic's max flow), and the
test perturbations that stay wrong where several answers are optimal."""

from __future__ import annotations

from collections import deque
from itertools import accumulate
from typing import Callable, Sequence

from rlve_jax.env import FormatError, parse_int_rows, parse_ints


def parse_batch_ends(answer: str, n: int, base: int = 1) -> list[int] | None:
    """Batch end indices (`base`-based, strictly increasing, the last one is item n) as exclusive
    0-based ends 1..n, or None when they do not describe a split of the n items."""
    ends = [e + 1 - base for e in parse_ints(answer)]
    if not ends or ends[-1] != n or any(not 0 <= a < b for a, b in zip([0] + ends, ends)):
        return None
    return ends


def parse_pairs(answer: str) -> list[list[int]]:
    """One `a b` pair of integers per line; any other line is a format error."""
    pairs = parse_int_rows(answer)
    if any(len(pair) != 2 for pair in pairs):
        raise FormatError("each line must hold two integers")
    return pairs


def batch_sums(values: Sequence[int], ends: Sequence[int]) -> list[int]:
    """Sum of each batch [previous end, end)."""
    return [sum(values[start:end]) for start, end in zip([0, *ends], ends)]


def optimal_segmentation(n: int, batch_value: Callable[[int, int], int],
                         maximize: bool = False) -> tuple[int, list[int]]:
    """(best total, exclusive batch ends) over all splits of n items into consecutive batches,
    a batch [j, i) adding batch_value(j, i) to the total; O(n^2) calls."""
    choose = max if maximize else min
    best, cut = [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        cut[i] = choose(range(i), key=lambda j: best[j] + batch_value(j, i))
        best[i] = best[cut[i]] + batch_value(cut[i], i)
    ends, i = [], n
    while i:
        ends.append(i)
        i = cut[i]
    return best[n], ends[::-1]


def ends_text(ends: Sequence[int], base: int = 1) -> str:
    """Exclusive 0-based ends written as `base`-based end indices."""
    return " ".join(str(e - 1 + base) for e in ends)


def drop_last_token(answer: str) -> str:
    """One value fewer: a wrong count, for answers where moving one value can stay optimal."""
    return " ".join(answer.split()[:-1])


def drop_last_line(answer: str) -> str:
    """One line fewer, for answers of one item per line."""
    return "\n".join(answer.splitlines()[:-1])


def repeat_first_token(answer: str, fallback: str) -> str:
    """A repeated index (invalid), or `fallback` when the answer is empty."""
    tokens = answer.split()
    return f"{answer} {tokens[0]}" if tokens else fallback


def min_max_split(weights: Sequence[int], batches: int) -> tuple[int, list[int]]:
    """(smallest possible largest |batch sum|, exclusive ends) over splits into exactly `batches`
    non-empty consecutive batches; O(batches * n^2)."""
    n = len(weights)
    prefix = list(accumulate(weights, initial=0))
    infinity = float("inf")
    best = [[infinity] * (n + 1) for _ in range(batches + 1)]  # best[k][i]: first i items in k batches
    cut = [[0] * (n + 1) for _ in range(batches + 1)]
    best[0][0] = 0
    for k in range(1, batches + 1):
        for i in range(k, n + 1):
            for j in range(k - 1, i):
                value = max(best[k - 1][j], abs(prefix[i] - prefix[j]))
                if value < best[k][i]:
                    best[k][i], cut[k][i] = value, j
    ends, i = [], n
    for k in range(batches, 0, -1):
        ends.append(i)
        i = cut[k][i]
    return best[batches][n], ends[::-1]


def min_cost_assignment(cost: Sequence[Sequence[int]]) -> list[int]:
    """Hungarian algorithm with potentials, O(n^3), exact on integers: the column of each row in a
    minimum-cost perfect assignment of a square matrix."""
    n = len(cost)
    row_potential, column_potential = [0] * (n + 1), [0] * (n + 1)
    row_of_column = [0] * (n + 1)  # 1-based row matched to each column; column 0 is a sentinel
    for row in range(1, n + 1):
        row_of_column[0] = row
        column = 0
        slack = [float("inf")] * (n + 1)
        previous = [0] * (n + 1)
        used = [False] * (n + 1)
        while row_of_column[column]:
            used[column] = True
            current, delta, next_column = row_of_column[column], float("inf"), 0
            for j in range(1, n + 1):
                if not used[j]:
                    reduced = cost[current - 1][j - 1] - row_potential[current] - column_potential[j]
                    if reduced < slack[j]:
                        slack[j], previous[j] = reduced, column
                    if slack[j] < delta:
                        delta, next_column = slack[j], j
            for j in range(n + 1):
                if used[j]:
                    row_potential[row_of_column[j]] += delta
                    column_potential[j] -= delta
                else:
                    slack[j] -= delta
            column = next_column
        while column:
            row_of_column[column] = row_of_column[previous[column]]
            column = previous[column]
    column_of_row = [0] * n
    for j in range(1, n + 1):
        column_of_row[row_of_column[j] - 1] = j - 1
    return column_of_row


class FlowNetwork:
    """Dinic's maximum flow on integer capacities, with the source side of a minimum cut."""

    def __init__(self, size: int):
        self.arcs: list[list[int]] = [[] for _ in range(size)]
        self.head: list[int] = []
        self.capacity: list[int] = []

    def add_arc(self, tail: int, head: int, capacity: int) -> int:
        """Adds the arc and its residual twin; returns the arc's id (its residual capacity is
        self.capacity[id] once the flow has run)."""
        arc = len(self.head)
        self.arcs[tail].append(arc)
        self.head.append(head)
        self.capacity.append(capacity)
        self.arcs[head].append(len(self.head))
        self.head.append(tail)
        self.capacity.append(0)
        return arc

    def _levels(self, source: int) -> list[int]:
        level = [-1] * len(self.arcs)
        level[source] = 0
        queue = deque([source])
        while queue:
            u = queue.popleft()
            for arc in self.arcs[u]:
                v = self.head[arc]
                if self.capacity[arc] > 0 and level[v] < 0:
                    level[v] = level[u] + 1
                    queue.append(v)
        return level

    def max_flow(self, source: int, sink: int) -> int:
        """Blocking flows along BFS levels, one augmenting path at a time (current-arc pointers)."""
        total = 0
        arcs, head, capacity = self.arcs, self.head, self.capacity
        while True:
            level = self._levels(source)
            if level[sink] < 0:
                return total
            cursor = [0] * len(arcs)
            path: list[int] = []
            u = source
            while True:
                if u == sink:
                    pushed = min(capacity[arc] for arc in path)
                    for arc in path:
                        capacity[arc] -= pushed
                        capacity[arc ^ 1] += pushed
                    total += pushed
                    path, u = [], source
                    continue
                while cursor[u] < len(arcs[u]):
                    arc = arcs[u][cursor[u]]
                    if capacity[arc] > 0 and level[head[arc]] == level[u] + 1:
                        break
                    cursor[u] += 1
                else:
                    if not path:
                        break
                    level[u] = -1
                    arc = path.pop()
                    u = head[arc ^ 1]
                    cursor[u] += 1
                    continue
                path.append(arcs[u][cursor[u]])
                u = head[path[-1]]

    def source_side(self, source: int) -> list[bool]:
        """After max_flow: the vertices still reachable from the source, one side of a minimum cut."""
        return [level >= 0 for level in self._levels(source)]
