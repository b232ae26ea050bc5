"""Graph environments: knob sweeps and levels, random graphs, prompt text, shortest paths, exact solvers
(bridges, cliques, colorings, covers) and the shared shapes of the coloring and vertex-set tasks.

Everything is deterministic given the `random.Random` passed in: candidate pair lists are built in
sorted order before sampling, and no set iteration order reaches an instance. Trees, adjacency lists,
BFS and union-find are in _common.
"""

from __future__ import annotations

import heapq
import random
from typing import ClassVar, Sequence

from rlve_jax.gym.environments._common import (
    INVALID, DisjointSets, adjacency, bfs_distances, drop_last_tokens, edge_lines, maximization_reward,
    minimization_reward, parse_distinct_indices, parse_ints, prufer_tree, random_tree, sweep, weighted_adjacency,
)
from rlve_jax.gym.env import Environment

# ---------------------------------------------------------------------------
# Difficulty levels

# Knob sweeps of the original controllers (catalog notation {a..b}).
DENSITIES_01_09 = sweep(0.1, 0.9)
DENSITIES_01_10 = sweep(0.1, 1.0)
DENSITIES_005_095 = sweep(0.05, 0.95)
# The original's three non-uniform density lists (named by their sizes):
# {0.02, 0.05, 0.15, 0.25, ..., 0.95}, {0.02, 0.05, 0.1, 0.15, ..., 0.5, 0.6, 0.7, 0.8, 0.9}, {0.1, ..., 0.5, 0.7, 0.9}.
DENSITIES_L11 = (0.02, 0.05) + sweep(0.15, 0.95)
DENSITIES_L15 = (0.02, 0.05) + sweep(0.1, 0.5, 0.05) + sweep(0.6, 0.9)
DENSITIES_L7 = sweep(0.1, 0.5) + (0.7, 0.9)
RATIOS_1_2 = sweep(1.0, 2.0)
RATIOS_1_3 = sweep(1.0, 3.0)
RATIOS_1_5 = sweep(1.0, 5.0)


def pair_count(n: int, directed: bool = False) -> int:
    return n * (n - 1) if directed else n * (n - 1) // 2


def density_levels(n: int, densities: Sequence[float], min_edges: int = 1,
                   directed: bool = False) -> list[dict]:
    """{"N", "edge_density"} settings whose edge count floor(rho * pairs) is at least `min_edges`."""
    return [{"N": n, "edge_density": rho} for rho in densities
            if int(rho * pair_count(n, directed)) >= min_edges]


def ratio_levels(n: int, ratios: Sequence[float]) -> list[dict]:
    """{"N", "edge_ratio"} settings whose edge count floor(ratio * N) fits in a simple graph."""
    return [{"N": n, "edge_ratio": r} for r in ratios if int(r * n) <= pair_count(n)]


# ---------------------------------------------------------------------------
# Random graphs


def random_pairs(n: int, m: int, rng: random.Random, directed: bool = False,
                 exclude: Sequence[Sequence[int]] = (), flip: bool = False) -> list[list[int]]:
    """m distinct vertex pairs [u, v] (u < v unless directed; fewer if the graph fills up), none in `exclude`
    (either orientation if undirected); with `flip`, each pair is then reversed on a coin toss."""
    taken = {(e[0], e[1]) if directed else (min(e[0], e[1]), max(e[0], e[1])) for e in exclude}
    candidates = [(u, v) for u in range(n) for v in range(n)
                  if u != v and (directed or u < v) and (u, v) not in taken]
    pairs = [list(p) for p in rng.sample(candidates, max(0, min(m, len(candidates))))]
    return [p if rng.random() < 0.5 else p[::-1] for p in pairs] if flip else pairs


def random_connected_graph(n: int, m: int, rng: random.Random) -> list[list[int]]:
    """A connected simple graph: a random recursive spanning tree plus random extra edges, m in total,
    shuffled, each edge then flipped on a coin toss."""
    edges = random_tree(n, rng)
    edges += random_pairs(n, m - len(edges), rng, exclude=edges)
    rng.shuffle(edges)
    return [e if rng.random() < 0.5 else e[::-1] for e in edges]


def prufer_connected_graph(n: int, m: int, rng: random.Random) -> list[list[int]]:
    """A connected simple graph with m >= n-1 edges: a uniform (Prüfer) spanning tree plus random extra
    edges (each flipped on a coin toss), shuffled."""
    edges = prufer_tree(n, rng)
    edges += random_pairs(n, m - len(edges), rng, exclude=edges, flip=True)
    rng.shuffle(edges)
    return edges


def weighted_density_graph(params: dict, low: int, high: int, rng: random.Random) -> list[list[int]]:
    """A connected graph with floor(edge_density * N(N-1)/2) edges, each weighted U[low, high]."""
    n = params["N"]
    pairs = prufer_connected_graph(n, int(params["edge_density"] * n * (n - 1) / 2), rng)
    return [[u, v, rng.randint(low, high)] for u, v in pairs]


# ---------------------------------------------------------------------------
# Prompt text

WEIGHTED_EDGES = ", each written as (u, v, w) for an edge between u and v with weight w"
WEIGHTED_ARCS = ", each written as (s, t, w) for an edge from s to t with weight w"


def graph_text(n: int, edges: Sequence[Sequence[int]], directed: bool = False, edge_form: str = "") -> str:
    """The opening of a graph prompt: vertex labels and the edge list (`edge_form` explains tuples)."""
    kind = "directed" if directed else "undirected"
    article = "a" if directed else "an"
    return (f"You are given {article} {kind} graph with {n} vertices, labeled from 0 to {n - 1}. "
            f"The graph contains the following {kind} edges{edge_form}:\n{edge_lines(edges)}\n\n")


def structure_text(kind: str, n: int, edges: Sequence[Sequence[int]], weight: str = "", directed: bool = False,
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


# ---------------------------------------------------------------------------
# Paths and distances


def all_pairs_shortest(n: int, edges: list[list[int]]) -> tuple[list[list[float]], list[list[int]]]:
    """Dijkstra from every vertex over directed [s, t, w] edges: distances and predecessor tables
    (predecessor -1 = none)."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for s, t, w in edges:
        adjacent[s].append((t, w))
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
            for v, w in adjacent[u]:
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


def walk_weight(edges: list[list[int]], walk: list[int]) -> int | None:
    """Total weight of consecutive directed [s, t, w] edges along the walk, or None if some step is not an edge."""
    weight = {(s, t): w for s, t, w in edges}
    total = 0
    for step in zip(walk, walk[1:]):
        if step not in weight:
            return None
        total += weight[step]
    return total


def all_pairs_distances(n: int, edges: Sequence[Sequence[int]]) -> list[list[float]]:
    """All-pairs shortest path lengths of an undirected graph, weighted if edges are [u, v, w]
    (INF where unreachable; integers otherwise)."""
    if edges and len(edges[0]) == 3:
        return all_pairs_shortest(n, [[u, v, w] for u, v, w in edges] + [[v, u, w] for u, v, w in edges])[0]
    unweighted = adjacency(n, edges)
    return [bfs_distances(unweighted, s) for s in range(n)]


def xor_potentials(n: int, edges: Sequence[Sequence[int]]) -> list[int]:
    """p[v] = XOR of the weights along a spanning-forest path from v's component root (p = 0 there);
    a path's XOR is p[u] ^ p[v] plus whatever cycles it closes."""
    adjacent = weighted_adjacency(n, edges)
    potential: list = [None] * n
    for root in range(n):
        if potential[root] is not None:
            continue
        potential[root], stack = 0, [root]
        while stack:
            v = stack.pop()
            for w, weight in adjacent[v]:
                if potential[w] is None:
                    potential[w] = potential[v] ^ weight
                    stack.append(w)
    return potential


# ---------------------------------------------------------------------------
# Structure and exact solvers


def find_bridges(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Tarjan's low-link bridges (iterative), each as [min, max], sorted."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for index, (u, v) in enumerate(edges):
        adjacent[u].append((v, index))
        adjacent[v].append((u, index))
    entry, low, bridges, clock = [-1] * n, [0] * n, [], 0
    for root in range(n):
        if entry[root] >= 0:
            continue
        entry[root] = low[root] = clock
        clock += 1
        stack = [(root, -1, iter(adjacent[root]))]
        while stack:
            v, via, neighbours = stack[-1]
            for w, index in neighbours:
                if index == via:
                    continue
                if entry[w] < 0:
                    entry[w] = low[w] = clock
                    clock += 1
                    stack.append((w, index, iter(adjacent[w])))
                    break
                low[v] = min(low[v], entry[w])
            else:
                stack.pop()
                if stack:
                    parent = stack[-1][0]
                    low[parent] = min(low[parent], low[v])
                    if low[v] > entry[parent]:
                        bridges.append(sorted((parent, v)))
    return sorted(bridges)


def is_spanning_tree(n: int, pairs: Sequence[Sequence[int]], allowed: set[tuple[int, int]] | None = None) -> bool:
    """True iff the pairs (vertices in range) are n-1 edges joining all n vertices without a cycle; with
    `allowed` (undirected edges stored as (min, max)), every pair must also be one of those."""
    if len(pairs) != n - 1:
        return False
    if allowed is not None and any((min(u, v), max(u, v)) not in allowed for u, v in pairs):
        return False
    sets = DisjointSets(n)
    return all(sets.union(u, v) for u, v in pairs)


def max_clique_size(n: int, adjacency: Sequence[int]) -> tuple[int, int]:
    """(size, vertex mask) of a maximum clique: Bron-Kerbosch with pivoting on bitmasks."""
    best = [0, 0]

    def expand(clique: int, size: int, candidates: int, excluded: int) -> None:
        if not candidates:
            if not excluded and size > best[0]:
                best[0], best[1] = size, clique
            return
        if size + bin(candidates).count("1") <= best[0]:
            return
        pivot_pool = candidates | excluded
        pivot = max(range(n), key=lambda u: bin(adjacency[u] & candidates).count("1") if pivot_pool >> u & 1 else -1)
        branch = candidates & ~adjacency[pivot]
        while branch:
            v = (branch & -branch).bit_length() - 1
            branch &= branch - 1
            expand(clique | 1 << v, size + 1, candidates & adjacency[v], excluded & adjacency[v])
            candidates &= ~(1 << v)
            excluded |= 1 << v

    expand(0, 0, (1 << n) - 1, 0)
    return best[0], best[1]


def minimum_coloring(n: int, conflicts: Sequence[int], lower: int,
                     harmonious_edges: Sequence[int] | None = None) -> list[int]:
    """An optimal coloring where vertices joined in the `conflicts` masks differ, by iterative
    deepening from `lower`; with `harmonious_edges`, no two edges may carry the same color pair."""
    order = sorted(range(n), key=lambda v: -bin(conflicts[v]).count("1"))
    for k in range(max(1, lower), n + 1):
        colors = [-1] * n
        used_pairs: set[tuple[int, int]] = set()

        def place(i: int, used: int) -> bool:
            if i == n:
                return True
            v = order[i]
            blocked = {colors[u] for u in range(n) if conflicts[v] >> u & 1 and colors[u] >= 0}
            for c in range(min(k, used + 1)):
                if c in blocked:
                    continue
                new_pairs = []
                if harmonious_edges is not None:
                    new_pairs = [(min(c, colors[u]), max(c, colors[u])) for u in range(n)
                                 if harmonious_edges[v] >> u & 1 and colors[u] >= 0]
                    if any(p in used_pairs for p in new_pairs):
                        continue
                colors[v] = c
                used_pairs.update(new_pairs)
                if place(i + 1, max(used, c + 1)):
                    return True
                used_pairs.difference_update(new_pairs)
                colors[v] = -1
            return False

        if place(0, 0):
            return colors
    raise AssertionError("every graph has a coloring with n colors")


def min_weight_cover(covers: Sequence[int], costs: Sequence[int], universe: int) -> list[int]:
    """Cheapest choice of candidates whose `covers` masks together contain `universe` (branch and bound:
    branch on the uncovered element with fewest usable candidates; positive costs)."""
    best: list = [sum(costs) + 1, []]
    chosen: list[int] = []

    def search(covered: int, banned: int, cost: int) -> None:
        if cost >= best[0]:
            return
        missing = universe & ~covered
        if not missing:
            best[0], best[1] = cost, sorted(chosen)
            return
        options = None
        while missing:
            bit = missing & -missing
            missing ^= bit
            usable = [c for c in range(len(covers)) if covers[c] & bit and not banned >> c & 1]
            if options is None or len(usable) < len(options):
                options = usable
                if len(options) <= 1:
                    break
        for c in sorted(options, key=lambda c: costs[c]):
            chosen.append(c)
            search(covered | covers[c], banned, cost + costs[c])
            chosen.pop()
            banned |= 1 << c  # later branches leave c out: no solution is explored twice

    search(0, 0, 0)
    return best[1]


# ---------------------------------------------------------------------------
# Colorings: answers, test perturbations and the shared task shape


def parse_colors(answer: str, n: int) -> list[int] | None:
    """n colors in [0, n), or None when the length or a value is wrong."""
    colors = parse_ints(answer)
    if len(colors) != n or any(not 0 <= c < n for c in colors):
        return None
    return colors


def recolor_perturb(answer: str) -> str:
    """A coloring that is worse or invalid: one vertex of a shared class gets a fresh color,
    or, when every class is a singleton, all vertices share color 0."""
    colors = parse_ints(answer)
    shared = [v for v, c in enumerate(colors) if colors.count(c) > 1]
    if not shared:
        return " ".join("0" for _ in colors)
    colors[shared[-1]] = min(set(range(len(colors) + 1)) - set(colors))
    return " ".join(map(str, colors))


class GraphColoringEnvironment(Environment):
    """The shared shape of the coloring tasks on N = 5 + d vertices with edge density in DENSITIES_L11:
    the answer is N colors, invalid ones get -0.5, valid ones (yours/opt)^5 or (opt/yours)^5 colors."""

    maximize: ClassVar[bool] = False
    rules: ClassVar[str] = ""  # the constraints, one "- ..." line each

    def optimal_coloring(self, n: int, edges: list[list[int]]) -> list[int]:
        raise NotImplementedError

    def is_valid(self, edges: list[list[int]], colors: list[int]) -> bool:
        raise NotImplementedError

    def levels(self, difficulty):
        return density_levels(5 + difficulty, DENSITIES_L11)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        colors = self.optimal_coloring(n, edges)
        return {"N": n, "edges": edges, "optimum": len(set(colors)), "reference": " ".join(map(str, colors))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"])
            + f"Assign each vertex i a color c[i], an integer from 0 to {n - 1}, such that:\n{self.rules}\n"
            f"Use as {'many' if self.maximize else 'few'} distinct colors as possible.\n\n"
            f"Output Format: a single line with {n} integers c[0] c[1] ... c[{n - 1}], separated by spaces."
        )

    def score(self, data, answer):
        colors = parse_colors(answer, data["N"])
        if colors is None or not self.is_valid(data["edges"], colors):
            return INVALID
        if self.maximize:
            return maximization_reward(len(set(colors)), data["optimum"], beta=5)
        return minimization_reward(data["optimum"], len(set(colors)), beta=5)

    def perturb(self, problem, answer):
        return recolor_perturb(answer)


# ---------------------------------------------------------------------------
# Cheapest vertex sets (dominating sets, vertex covers)


class CheapestVertexSetEnvironment(Environment):
    """The shared shape of Minimum_DominatingSet and Minimum_VertexCover: N = 4 + d vertices, edge density
    in DENSITIES_L15, vertex costs U[1, 10]; a vertex set is valid when the `coverage` masks of its
    vertices together hold the whole universe, and scores (optimal cost / your cost)^5."""

    requirement: ClassVar[str] = ""  # what the selected set must achieve, e.g. "(a vertex cover)"

    def coverage(self, n: int, edges: list[list[int]]) -> tuple[list[int], int]:
        """(mask of what each vertex covers, mask of everything that must be covered)."""
        raise NotImplementedError

    def levels(self, difficulty):
        return density_levels(4 + difficulty, DENSITIES_L15)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        costs = [rng.randint(1, 10) for _ in range(n)]
        covers, universe = self.coverage(n, edges)
        chosen = min_weight_cover(covers, costs, universe)
        return {"N": n, "edges": edges, "costs": costs, "optimum": sum(costs[v] for v in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        costs = " ".join(f"C[{v}]={c}" for v, c in enumerate(data["costs"]))
        return (
            graph_text(data["N"], data["edges"])
            + f"Each vertex has a cost: {costs}\n\n"
            f"Select a set of distinct vertices such that {self.requirement}, with the smallest possible "
            "total cost.\n\n"
            "Output Format: a single line with the selected vertices, separated by spaces, in any order."
        )

    def score(self, data, answer):
        chosen = parse_distinct_indices(answer, data["N"])
        if chosen is None:
            return INVALID
        covers, universe = self.coverage(data["N"], data["edges"])
        covered = 0
        for v in chosen:
            covered |= covers[v]
        if covered != universe:
            return INVALID
        return minimization_reward(data["optimum"], sum(data["costs"][v] for v in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)  # an optimal set is minimal (costs > 0): dropping a vertex breaks it
