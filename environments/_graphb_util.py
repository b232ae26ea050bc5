"""Shared pieces of the graph batch B: controller sweeps, random trees and graphs, distances, edge text.

Everything is deterministic given the `random.Random` passed in: candidate pair lists are built in
sorted order before sampling, and no set iteration order reaches an instance.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from typing import Sequence

from environments._weighted_digraph import all_pairs_shortest
from rlve_jax.env import Environment, FormatError, grow, parse_int, parse_ints

# Knob sweeps of the original controllers (catalog notation {a..b}).
DENSITIES_01_10 = tuple(round(0.1 * i, 1) for i in range(1, 11))
DENSITIES_01_09 = DENSITIES_01_10[:-1]
DENSITIES_002_09 = (0.02, 0.05) + DENSITIES_01_09

INF = float("inf")


def grow_n(start: int, difficulty: int) -> int:
    """The common controller rule N <- floor(1.1 N + 1), applied `difficulty` times."""
    return grow(start, lambda n: int(1.1 * n + 1), difficulty)


def undirected_density_levels(n: int, densities: Sequence[float], min_edges: int) -> list[dict]:
    """{"N", "edge_density"} settings whose edge count floor(rho * N(N-1)/2) is at least `min_edges`."""
    return [{"N": n, "edge_density": rho} for rho in densities if int(rho * n * (n - 1) / 2) >= min_edges]


def prufer_tree(n: int, rng: random.Random) -> list[list[int]]:
    """A uniformly random labelled tree on 0..n-1 (decoded from a random Prüfer sequence)."""
    if n <= 2:
        return [[0, 1]] if n == 2 else []
    code = [rng.randrange(n) for _ in range(n - 2)]
    degree = [1] * n
    for v in code:
        degree[v] += 1
    leaves = [v for v in range(n) if degree[v] == 1]
    heapq.heapify(leaves)
    edges = []
    for v in code:
        leaf = heapq.heappop(leaves)
        edges.append([leaf, v])
        degree[v] -= 1
        if degree[v] == 1:
            heapq.heappush(leaves, v)
    edges.append([heapq.heappop(leaves), heapq.heappop(leaves)])
    rng.shuffle(edges)
    return [e if rng.random() < 0.5 else e[::-1] for e in edges]


def extra_pairs(n: int, existing: Sequence[Sequence[int]], count: int, rng: random.Random) -> list[list[int]]:
    """`count` random unordered pairs {u, v} (u != v) not among `existing` (fewer if the graph fills up)."""
    taken = {(min(e[0], e[1]), max(e[0], e[1])) for e in existing}
    candidates = [[u, v] for u in range(n) for v in range(u + 1, n) if (u, v) not in taken]
    chosen = rng.sample(candidates, max(0, min(count, len(candidates))))
    return [p if rng.random() < 0.5 else p[::-1] for p in chosen]


def extra_arcs(n: int, existing: Sequence[Sequence[int]], count: int, rng: random.Random) -> list[list[int]]:
    """`count` random directed pairs (s, t), s != t, not among `existing` (fewer if the digraph fills up)."""
    taken = {(s, t) for s, t in existing}
    candidates = [[s, t] for s in range(n) for t in range(n) if s != t and (s, t) not in taken]
    return rng.sample(candidates, max(0, min(count, len(candidates))))


def random_connected_graph(n: int, m: int, rng: random.Random) -> list[list[int]]:
    """A connected simple graph with m >= n-1 edges: a random spanning tree plus random extra edges, shuffled."""
    edges = prufer_tree(n, rng)
    edges += extra_pairs(n, edges, m - len(edges), rng)
    rng.shuffle(edges)
    return edges


def weighted_density_graph(params: dict, low: int, high: int, rng: random.Random) -> list[list[int]]:
    """A connected graph with floor(edge_density * N(N-1)/2) edges, each weighted U[low, high]."""
    n = params["N"]
    pairs = random_connected_graph(n, int(params["edge_density"] * n * (n - 1) / 2), rng)
    return [[u, v, rng.randint(low, high)] for u, v in pairs]


def neighbours(n: int, edges: Sequence[Sequence[int]]) -> list[list[int]]:
    """Undirected adjacency lists from [u, v, ...] edges."""
    adjacent: list[list[int]] = [[] for _ in range(n)]
    for u, v, *_ in edges:
        adjacent[u].append(v)
        adjacent[v].append(u)
    return adjacent


def weighted_neighbours(n: int, edges: Sequence[Sequence[int]]) -> list[list[tuple[int, int]]]:
    """Undirected adjacency lists of (neighbour, weight) from [u, v, w] edges."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
        adjacent[v].append((u, w))
    return adjacent


def bfs_distances(adjacent: Sequence[Sequence[int]], source: int) -> list[float]:
    """Unweighted distances from `source` (INF where unreachable)."""
    dist: list[float] = [INF] * len(adjacent)
    dist[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in adjacent[u]:
            if dist[v] == INF:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def all_pairs_distances(n: int, edges: Sequence[Sequence[int]]) -> list[list[float]]:
    """All-pairs shortest path lengths of an undirected graph, weighted if edges are [u, v, w]."""
    if edges and len(edges[0]) == 3:
        return all_pairs_shortest(n, [[u, v, w] for u, v, w in edges] + [[v, u, w] for u, v, w in edges])[0]
    unweighted = neighbours(n, edges)
    return [bfs_distances(unweighted, s) for s in range(n)]


def is_spanning_tree(n: int, pairs: Sequence[Sequence[int]]) -> bool:
    """True iff the pairs (vertices in range) are n-1 edges joining all n vertices without a cycle."""
    if len(pairs) != n - 1:
        return False
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in pairs:
        ru, rv = find(u), find(v)
        if ru == rv:
            return False
        parent[ru] = rv
    return True


def edge_lines(edges: Sequence[Sequence[int]]) -> str:
    """One `(a, b, ...)` tuple per line, as the prompts show edges."""
    return "\n".join("(" + ", ".join(map(str, e)) + ")" for e in edges)


def graph_text(kind: str, n: int, edges: Sequence[Sequence[int]], weight: str = "", directed: bool = False,
               first: int = 0) -> str:
    """The opening of a prompt: a `kind` ("tree", "undirected graph", ...) on labels first..first+n-1 and its
    edge list; `weight` names the third entry of weighted edges ("weight", "length")."""
    article = "an" if kind[0] in "aeiou" else "a"
    if directed:
        form = f"(s, t, w): an edge from s to t with {weight} w" if weight else "(s, t): an edge from s to t"
        listing = f"Its edges are listed below, each as {form}."
    elif weight:
        listing = f"Its edges are listed below, each as (u, v, w): an edge between u and v with {weight} w."
    else:
        listing = "Its edges are:"
    return (f"You are given {article} {kind} with {n} vertices, labeled from {first} to {first + n - 1}. "
            f"{listing}\n{edge_lines(edges)}\n\n")


def parse_pairs(values: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive integers as pairs `u1 v1 u2 v2 ...`; an odd count is a format error."""
    if len(values) % 2:
        raise FormatError("odd number of integers")
    return list(zip(values[::2], values[1::2]))


def distinct_vertices(answer: str, n: int, count: int) -> list[int] | None:
    """Exactly `count` distinct vertex ids in 0..n-1, or None (the invalid reward)."""
    values = parse_ints(answer)
    if len(values) != count or len(set(values)) != count or any(not 0 <= v < n for v in values):
        return None
    return values


class ExactIntegerEnvironment(Environment):
    """The answer is the single integer in data["reference"]: 1 if equal, else 0."""

    def score(self, data, answer):
        return float(parse_int(answer) == int(data["reference"]))
