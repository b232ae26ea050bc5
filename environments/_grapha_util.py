"""Shared helpers for the graph environments of batch A: level sweeps, random graphs, answer parsing.

Everything here is deterministic given the `random.Random` passed in: pair lists are built in
sorted order before sampling, and no set iteration order reaches an instance.
"""

from __future__ import annotations

import random
from typing import ClassVar, Sequence

from rlve_jax.env import Environment, FormatError, grow, parse_ints


# ---------------------------------------------------------------------------
# Difficulty levels


# Knob sweeps of the original controllers (catalog notation {a..b}).
DENSITIES_01_09 = tuple(round(0.1 * i, 2) for i in range(1, 10))
DENSITIES_005_095 = tuple(round(0.05 + 0.1 * i, 2) for i in range(10))
DENSITIES_002_09 = (0.02, 0.05) + DENSITIES_01_09
DENSITIES_002_095 = DENSITIES_002_09 + (0.95,)
RATIOS_1_3 = tuple(round(1.0 + 0.1 * i, 1) for i in range(21))
RATIOS_1_5 = tuple(round(1.0 + 0.1 * i, 1) for i in range(41))


def grow_n(start: int, difficulty: int) -> int:
    """The common controller rule N <- floor(1.1 N + 1), applied `difficulty` times."""
    return grow(start, lambda n: int(1.1 * n + 1), difficulty)


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
# Random instances


def random_pairs(rng: random.Random, n: int, m: int, directed: bool = False,
                 exclude: Sequence[Sequence[int]] = ()) -> list[list[int]]:
    """m distinct vertex pairs (u < v unless directed), none in `exclude` (either orientation if undirected)."""
    taken = {tuple(p) if directed else tuple(sorted(p)) for p in exclude}
    candidates = [(u, v) for u in range(n) for v in range(n)
                  if u != v and (directed or u < v) and (u, v) not in taken]
    return [list(p) for p in rng.sample(candidates, min(m, len(candidates)))]


def random_tree(rng: random.Random, n: int) -> list[list[int]]:
    """A random recursive tree (each vertex hangs from a random earlier one) on shuffled labels 0..n-1."""
    order = list(range(n))
    rng.shuffle(order)
    return [[order[rng.randrange(i)], order[i]] for i in range(1, n)]


def random_connected_graph(rng: random.Random, n: int, m: int) -> list[list[int]]:
    """A connected simple graph: a random spanning tree plus random extra edges, m in total, shuffled."""
    edges = random_tree(rng, n)
    edges += random_pairs(rng, n, m - len(edges), exclude=edges)
    rng.shuffle(edges)
    return [e if rng.random() < 0.5 else e[::-1] for e in edges]


# ---------------------------------------------------------------------------
# Graph structure and exact solvers


def adjacency_sets(n: int, edges: Sequence[Sequence[int]]) -> list[set[int]]:
    adjacent: list[set[int]] = [set() for _ in range(n)]
    for u, v in (e[:2] for e in edges):
        adjacent[u].add(v)
        adjacent[v].add(u)
    return adjacent


def adjacency_masks(n: int, edges: Sequence[Sequence[int]]) -> list[int]:
    """Bitmask of the neighbours of each vertex (undirected)."""
    masks = [0] * n
    for u, v in (e[:2] for e in edges):
        masks[u] |= 1 << v
        masks[v] |= 1 << u
    return masks


class DisjointSets:
    """Union-find with path halving."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> bool:
        """Join the sets of a and b; False if they were already one set."""
        a, b = self.find(a), self.find(b)
        self.parent[a] = b
        return a != b


def xor_potentials(n: int, edges: Sequence[Sequence[int]]) -> list[int]:
    """p[v] = XOR of the weights along a spanning-forest path from v's component root (p = 0 there);
    a path's XOR is p[u] ^ p[v] plus whatever cycles it closes."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
        adjacent[v].append((u, w))
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


def is_spanning_tree(n: int, edges: Sequence[tuple[int, int]], allowed: set[tuple[int, int]]) -> bool:
    """n-1 distinct allowed undirected edges (stored as (min, max)) that connect all n vertices."""
    normalized = [(min(u, v), max(u, v)) for u, v in edges]
    if len(normalized) != n - 1 or len(set(normalized)) != n - 1 or any(e not in allowed for e in normalized):
        return False
    sets = DisjointSets(n)
    return all(sets.union(u, v) for u, v in normalized)


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
# Prompt text


def edge_lines(edges: Sequence[Sequence[int]]) -> str:
    """One `(a, b, ...)` tuple per line, as the prompts show edges."""
    return "\n".join("(" + ", ".join(map(str, e)) + ")" for e in edges)


WEIGHTED_EDGES = ", each written as (u, v, w) for an edge between u and v with weight w"
WEIGHTED_ARCS = ", each written as (s, t, w) for an edge from s to t with weight w"


def graph_text(n: int, edges: Sequence[Sequence[int]], directed: bool = False, edge_form: str = "") -> str:
    """The opening of a graph prompt: vertex labels and the edge list (`edge_form` explains tuples)."""
    kind = "directed" if directed else "undirected"
    article = "a" if directed else "an"
    return (f"You are given {article} {kind} graph with {n} vertices, labeled from 0 to {n - 1}. "
            f"The graph contains the following {kind} edges{edge_form}:\n{edge_lines(edges)}\n\n")


# ---------------------------------------------------------------------------
# Answers: parsing, rewards, and nearby wrong answers for tests


def parse_pairs(answer: str) -> list[tuple[int, int]]:
    """A flat list `u1 v1 u2 v2 ...`; an odd count is a format error."""
    values = parse_ints(answer)
    if len(values) % 2:
        raise FormatError("odd number of integers")
    return list(zip(values[::2], values[1::2]))


def parse_vertex_set(answer: str, n: int) -> list[int] | None:
    """Distinct vertex ids in [0, n), or None when one repeats or is out of range."""
    vertices = parse_ints(answer)
    if len(set(vertices)) != len(vertices) or any(not 0 <= v < n for v in vertices):
        return None
    return vertices


def parse_colors(answer: str, n: int) -> list[int] | None:
    """n colors in [0, n), or None when the length or a value is wrong."""
    colors = parse_ints(answer)
    if len(colors) != n or any(not 0 <= c < n for c in colors):
        return None
    return colors


def min_objective_reward(optimum: float, yours: float, beta: float) -> float:
    """(optimum / yours)^beta for minimisation; equal values (including 0 = 0) give 1."""
    if yours == optimum:
        return 1.0
    return 0.0 if yours <= 0 else min(1.0, optimum / yours) ** beta


def max_objective_reward(yours: float, optimum: float, beta: float) -> float:
    """(yours / optimum)^beta for maximisation (optimum > 0)."""
    return max(0.0, min(1.0, yours / optimum)) ** beta


def drop_last_ints(answer: str, count: int) -> str:
    """The answer without its last `count` integers: a strictly worse or invalid answer for tests."""
    return " ".join(answer.split()[:-count])


def doubled_count(answer: str) -> str:
    """A far-off count for tests: +1 is within the accuracy tolerance of (min/max)^beta on large counts."""
    return str(2 * int(answer) + 1)


def recolor_perturb(answer: str) -> str:
    """A coloring that is worse or invalid: one vertex of a shared class gets a fresh color,
    or, when every class is a singleton, all vertices share color 0."""
    colors = parse_ints(answer)
    shared = [v for v, c in enumerate(colors) if colors.count(c) > 1]
    if not shared:
        return " ".join("0" for _ in colors)
    colors[shared[-1]] = min(set(range(len(colors) + 1)) - set(colors))
    return " ".join(map(str, colors))


# ---------------------------------------------------------------------------
# Shared task shapes


class GraphColoringEnvironment(Environment):
    """The shared shape of the coloring tasks on N = 5 + d vertices with edge density in {0.02..0.95}:
    the answer is N colors, invalid ones get -0.5, valid ones (yours/opt)^5 or (opt/yours)^5 colors."""

    maximize: ClassVar[bool] = False
    rules: ClassVar[str] = ""  # the constraints, one "- ..." line each

    def optimal_coloring(self, n: int, edges: list[list[int]]) -> list[int]:
        raise NotImplementedError

    def is_valid(self, edges: list[list[int]], colors: list[int]) -> bool:
        raise NotImplementedError

    def levels(self, difficulty):
        return density_levels(5 + difficulty, DENSITIES_002_095)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(rng, n, int(params["edge_density"] * pair_count(n)))
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
            return -0.5
        if self.maximize:
            return max_objective_reward(len(set(colors)), data["optimum"], beta=5)
        return min_objective_reward(data["optimum"], len(set(colors)), beta=5)

    def perturb(self, problem, answer):
        return recolor_perturb(answer)


class CheapestVertexSetEnvironment(Environment):
    """The shared shape of Minimum_DominatingSet and Minimum_VertexCover: N = 4 + d vertices, edge density
    in {0.02..0.9}, vertex costs U[1, 10]; a vertex set is valid when the `coverage` masks of its
    vertices together hold the whole universe, and scores (optimal cost / your cost)^5."""

    requirement: ClassVar[str] = ""  # what the selected set must achieve, e.g. "(a vertex cover)"

    def coverage(self, n: int, edges: list[list[int]]) -> tuple[list[int], int]:
        """(mask of what each vertex covers, mask of everything that must be covered)."""
        raise NotImplementedError

    def levels(self, difficulty):
        return density_levels(4 + difficulty, DENSITIES_002_09)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(rng, n, int(params["edge_density"] * pair_count(n)))
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
        chosen = parse_vertex_set(answer, data["N"])
        if chosen is None:
            return -0.5
        covers, universe = self.coverage(data["N"], data["edges"])
        covered = 0
        for v in chosen:
            covered |= covers[v]
        if covered != universe:
            return -0.5
        return min_objective_reward(data["optimum"], sum(data["costs"][v] for v in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_ints(answer, 1)  # an optimal set is minimal (costs > 0): dropping a vertex breaks it
