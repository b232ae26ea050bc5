"""MinimumSteinerTree: a minimum-weight connected set of edges joining K terminal vertices."""

from rlve_jax.gym.environments._common import drop_last_tokens, parse_flat_pairs
from rlve_jax.gym.environments._graphs import DENSITIES_01_10, density_levels, structure_text, weighted_density_graph
from rlve_jax.gym.env import Environment


def kruskal(vertices: int, sorted_edges: list[list[int]]) -> tuple[int, list[list[int]]] | None:
    """Minimum spanning tree of the subgraph induced by the vertex bitmask, or None if it is disconnected."""
    parent = {v: v for v in range(vertices.bit_length()) if vertices >> v & 1}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    total, chosen = 0, []
    for u, v, w in sorted_edges:
        if vertices >> u & 1 and vertices >> v & 1:
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[ru] = rv
                total += w
                chosen.append([u, v])
    return (total, chosen) if len(chosen) == len(parent) - 1 else None


def steiner_tree(n: int, edges: list[list[int]], terminals: list[int]) -> tuple[int, list[list[int]]]:
    """Exact optimum: an optimal Steiner tree is the MST of the subgraph induced by its own vertex set,
    so try every set of Steiner (non-terminal) vertices."""
    sorted_edges = sorted(edges, key=lambda e: e[2])
    terminal_mask = sum(1 << t for t in terminals)
    others = [v for v in range(n) if not terminal_mask >> v & 1]
    best: tuple[int, list[list[int]]] | None = None
    for subset in range(1 << len(others)):
        vertices = terminal_mask | sum(1 << v for i, v in enumerate(others) if subset >> i & 1)
        tree = kruskal(vertices, sorted_edges)
        if tree is not None and (best is None or tree[0] < best[0]):
            best = tree
    assert best is not None  # the graph is connected
    return best


class MinimumSteinerTree(Environment):
    name = "MinimumSteinerTree"

    def levels(self, difficulty):
        n = 4 + difficulty
        return density_levels(n, DENSITIES_01_10, min_edges=n)  # more than N-1 edges

    def sample(self, params, rng):
        n = params["N"]
        edges = weighted_density_graph(params, 1, n, rng)
        terminals = sorted(rng.sample(range(n), rng.randint(3, min(20, n - 1))))
        optimum, tree = steiner_tree(n, edges, terminals)
        return {"N": n, "edges": edges, "terminals": terminals, "optimum": optimum,
                "reference": " ".join(f"{u} {v}" for u, v in tree)}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("undirected graph", n, data["edges"], weight="weight") +
            f"Select a set of edges that connects all of the following terminal vertices: "
            f"{' '.join(map(str, data['terminals']))}. The selected edges must form a single connected subgraph "
            "that contains every terminal (other vertices may be used too). Minimize the total weight of the "
            "selected edges.\n\n"
            "Output Format: a single line `u1 v1 u2 v2 ...` listing the endpoints of each selected edge, "
            "separated by spaces (e.g. `0 1 1 3` selects the edges (0, 1) and (1, 3))."
        )

    def score(self, data, answer):
        pairs = parse_flat_pairs(answer)
        weight = {(min(u, v), max(u, v)): w for u, v, w in data["edges"]}
        chosen = {(min(u, v), max(u, v)) for u, v in pairs}
        if any(edge not in weight for edge in chosen):
            return -0.5
        touched = sorted({v for edge in chosen for v in edge})
        if not set(data["terminals"]) <= set(touched) or not is_connected(touched, chosen):
            return -0.5
        return (data["optimum"] / sum(weight[edge] for edge in chosen)) ** 5

    def perturb(self, problem, answer):
        """Drop the last edge: a tree without an edge is disconnected or misses a terminal leaf."""
        return drop_last_tokens(answer, 2)


def is_connected(vertices: list[int], edges: set[tuple[int, int]]) -> bool:
    """Whether the edges join all the listed vertices into one component."""
    adjacent: dict[int, list[int]] = {v: [] for v in vertices}
    for u, v in edges:
        adjacent[u].append(v)
        adjacent[v].append(u)
    seen, stack = {vertices[0]}, [vertices[0]]
    while stack:
        for v in adjacent[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == len(vertices)
