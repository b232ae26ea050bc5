"""Helpers shared by the weighted directed-graph environments (ShortestPath, HamiltonianPath)."""

import heapq


def edge_lines(edges: list[list[int]]) -> str:
    """One `(s, t, w)` line per edge."""
    return "\n".join(f"({s}, {t}, {w})" for s, t, w in edges)


def walk_weight(edges: list[list[int]], walk: list[int]) -> int | None:
    """Total weight of consecutive edges along the walk, or None if some step is not an edge."""
    weight = {(s, t): w for s, t, w in edges}
    total = 0
    for step in zip(walk, walk[1:]):
        if step not in weight:
            return None
        total += weight[step]
    return total


def all_pairs_shortest(n: int, edges: list[list[int]]) -> tuple[list[list[float]], list[list[int]]]:
    """Dijkstra from every vertex: distances and predecessor tables (predecessor -1 = none)."""
    adjacency: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for s, t, w in edges:
        adjacency[s].append((t, w))
    dist = [[float("inf")] * n for _ in range(n)]
    prev = [[-1] * n for _ in range(n)]
    for source in range(n):
        d, p = dist[source], prev[source]
        d[source] = 0
        heap = [(0, source)]
        while heap:
            du, u = heapq.heappop(heap)
            if du > d[u]:
                continue
            for v, w in adjacency[u]:
                if du + w < d[v]:
                    d[v], p[v] = du + w, u
                    heapq.heappush(heap, (du + w, v))
    return dist, prev


def path_between(prev_from_source: list[int], source: int, target: int) -> list[int]:
    """Vertices of the shortest path source -> target (inclusive) from a predecessor table."""
    path = [target]
    while path[-1] != source:
        path.append(prev_from_source[path[-1]])
    return path[::-1]
