"""Shared pieces of the optimization batch A: the two ratio rewards, parsers for index, permutation
and grid answers, tree distances, functional-graph cycles, bipartite matching and assignment solvers."""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections import deque
from typing import Sequence

from environments._combob_util import adjacency
from rlve_jax.env import Environment, FormatError, Problem, parse_ints, parse_lines


def minimize_reward(optimum: int, value: int, beta: float) -> float:
    """(optimum / your value)^beta for a feasible answer of a minimization task; 0/0 counts as optimal."""
    if value == 0:
        return float(optimum == 0)
    return (optimum / value) ** beta


def maximize_reward(optimum: int, value: int, beta: float) -> float:
    """(your value / optimum)^beta for a feasible answer of a maximization task; an optimum of 0 is always met."""
    if optimum == 0:
        return 1.0
    return (value / optimum) ** beta


def distinct_indices(answer: str, size: int, base: int = 0) -> list[int] | None:
    """0-based indices from an answer of distinct indices base..base+size-1, or None if one is
    out of range or repeated (the caller's invalid reward)."""
    chosen = [i - base for i in parse_ints(answer)]
    if any(not 0 <= i < size for i in chosen) or len(set(chosen)) != len(chosen):
        return None
    return chosen


def parse_permutation(answer: str, size: int, base: int = 0) -> list[int] | None:
    """A permutation of base..base+size-1 as 0-based values, or None if it is not one."""
    values = parse_ints(answer)
    if sorted(values) != list(range(base, base + size)):
        return None
    return [v - base for v in values]


def parse_char_grid(answer: str, rows: int, columns: int, alphabet: str) -> list[str]:
    """`rows` lines of `columns` letters from `alphabet` (spaces between letters allowed); anything else
    is a format error."""
    lines = [line.replace(" ", "") for line in parse_lines(answer)]
    if len(lines) != rows or any(len(line) != columns or line.strip(alphabet) for line in lines):
        raise FormatError("wrong grid shape or letters")
    return lines


class DropLastTokenPerturbation(Environment):
    """For answers where moving one number can land on another optimum: the test's wrong answer
    drops the last token instead (one index fewer: a wrong count, or a strictly worse choice)."""

    def perturb(self, problem: Problem, answer: str) -> str:
        return " ".join(answer.split()[:-1])


def functional_cycles(successor: Sequence[int]) -> list[list[int]]:
    """The cycles of the functional graph i -> successor[i], each listed along the arrows."""
    state, found = [0] * len(successor), []  # 0 new, 1 on the current walk, 2 done
    for start in range(len(successor)):
        walk, v = [], start
        while not state[v]:
            state[v] = 1
            walk.append(v)
            v = successor[v]
        if state[v] == 1:
            found.append(walk[walk.index(v):])
        for u in walk:
            state[u] = 2
    return found


def tree_distances(n: int, edges: Sequence[Sequence[int]]) -> list[list[int]]:
    """All-pairs distances (in edges) of a tree by one BFS per vertex."""
    neighbours = adjacency(n, edges)
    distances = []
    for source in range(n):
        dist = [-1] * n
        dist[source] = 0
        queue = deque([source])
        while queue:
            u = queue.popleft()
            for v in neighbours[u]:
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        distances.append(dist)
    return distances


def max_bipartite_matching(left: int, right: int, adjacent: Sequence[Sequence[int]]) -> list[int]:
    """Kuhn's augmenting paths: match_of_right[r] = matched left vertex or -1."""
    match_of_right = [-1] * right

    def augment(u: int, seen: list[bool]) -> bool:
        for v in adjacent[u]:
            if not seen[v]:
                seen[v] = True
                if match_of_right[v] < 0 or augment(match_of_right[v], seen):
                    match_of_right[v] = u
                    return True
        return False

    for u in range(left):
        augment(u, [False] * right)
    return match_of_right


def min_vertex_cover(left: int, right: int, adjacent: Sequence[Sequence[int]]) -> tuple[list[int], list[int]]:
    """König: a minimum vertex cover (left vertices, right vertices) from a maximum matching."""
    match_of_right = max_bipartite_matching(left, right, adjacent)
    matched_left = set(match_of_right) - {-1}
    reached_left = [u not in matched_left for u in range(left)]  # alternating search from free left vertices
    reached_right = [False] * right
    queue = deque(u for u in range(left) if reached_left[u])
    while queue:
        u = queue.popleft()
        for v in adjacent[u]:
            if not reached_right[v]:
                reached_right[v] = True
                w = match_of_right[v]
                if w >= 0 and not reached_left[w]:
                    reached_left[w] = True
                    queue.append(w)
    return [u for u in range(left) if not reached_left[u]], [v for v in range(right) if reached_right[v]]


def min_cost_assignment(cost: Sequence[Sequence[int]]) -> list[int]:
    """Hungarian algorithm (potentials, O(n^3)) on a square matrix: column assigned to each row."""
    n = len(cost)
    inf = float("inf")
    u, v = [0] * (n + 1), [0] * (n + 1)
    row_of = [0] * (n + 1)  # row_of[j]: 1-based row matched to column j; column 0 is the free slot
    way = [0] * (n + 1)
    for i in range(1, n + 1):
        row_of[0], j0 = i, 0
        minv, used = [inf] * (n + 1), [False] * (n + 1)
        while row_of[j0]:
            used[j0] = True
            i0, delta, j1 = row_of[j0], inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    reduced = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if reduced < minv[j]:
                        minv[j], way[j] = reduced, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[row_of[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
        while j0:
            j1 = way[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    column_of = [0] * n
    for j in range(1, n + 1):
        column_of[row_of[j] - 1] = j - 1
    return column_of


def sparse_min_cost_assignment(arcs: Sequence[Sequence[tuple[int, int]]]) -> list[int]:
    """Min-cost perfect matching of left i to right j = arcs[i][k][0] (cost arcs[i][k][1] >= 0), n per side,
    by successive shortest augmenting paths (Dijkstra with potentials): fast where each row has few arcs.
    Raises ValueError if there is no perfect matching."""
    n = len(arcs)
    potential_left, potential_right = [0] * n, [0] * n
    left_of, right_of = [-1] * n, [-1] * n
    for source in range(n):
        dist = {("L", source): 0}  # Dijkstra over alternating paths, keyed by (side, vertex)
        parent: dict[int, int] = {}  # right vertex -> the left vertex it was reached from
        settled: set[tuple[str, int]] = set()
        heap = [(0, "L", source)]
        target = -1
        while heap:
            d, side, x = heapq.heappop(heap)
            if (side, x) in settled:
                continue
            settled.add((side, x))
            if side == "R":
                if left_of[x] < 0:
                    target = x
                    break
                u = left_of[x]
                if d < dist.get(("L", u), float("inf")):  # the matched edge has reduced cost 0
                    dist["L", u] = d
                    heapq.heappush(heap, (d, "L", u))
                continue
            for v, c in arcs[x]:
                if v == right_of[x]:
                    continue
                nd = d + c + potential_left[x] - potential_right[v]
                if nd < dist.get(("R", v), float("inf")):
                    dist["R", v], parent[v] = nd, x
                    heapq.heappush(heap, (nd, "R", v))
        if target < 0:
            raise ValueError("no perfect matching")
        reach = dist["R", target]
        for (side, x), d in dist.items():  # phi -= max(0, reach - d) keeps reduced costs >= 0
            if d < reach:
                if side == "L":
                    potential_left[x] -= reach - d
                else:
                    potential_right[x] -= reach - d
        v = target
        while True:
            u = parent[v]
            previous = right_of[u]
            right_of[u], left_of[v] = v, u
            if u == source:
                break
            v = previous
    return right_of


def longest_non_decreasing(values: Sequence[int]) -> int:
    """Length of the longest non-decreasing subsequence (patience sorting with bisect_right)."""
    tails: list[int] = []
    for x in values:
        k = bisect_right(tails, x)
        if k == len(tails):
            tails.append(x)
        else:
            tails[k] = x
    return len(tails)
