"""PowerShortcut: the fewest hops from 0 to N-1 where each hop follows a walk of exactly 2^k edges, k <= K."""

from collections import deque

from rlve_jax.gym.environments._graphs import random_pairs, structure_text
from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p1, parse_ints

DENSITIES = (0.01, 0.02, 0.03)


def hop_targets(n: int, edges: list[list[int]], max_power: int) -> list[int]:
    """Bitmask per vertex of where one hop can land: walks of length 2^k by repeated squaring of reachability."""
    walk = [0] * n  # walks of length exactly 2^k, starting with k = 0
    for s, t in edges:
        walk[s] |= 1 << t
    hops = list(walk)
    for _ in range(max_power):
        walk = [combine(walk, mask) for mask in walk]
        hops = [h | w for h, w in zip(hops, walk)]
    return hops


def combine(walk: list[int], mask: int) -> int:
    """Union of walk[v] over the vertices v in mask."""
    union = 0
    while mask:
        low = mask & -mask
        union |= walk[low.bit_length() - 1]
        mask ^= low
    return union


class PowerShortcut(Environment):
    name = "PowerShortcut"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        return [{"N": n, "edge_density": rho, "K": k} for rho in DENSITIES for k in (1, 2, 3)]

    def sample(self, params, rng):
        n = params["N"]
        path = [0] + rng.sample(range(1, n - 1), n - 2) + [n - 1]
        edges = [[s, t] for s, t in zip(path, path[1:])]
        edges += random_pairs(n, int(params["edge_density"] * n * (n - 1)), rng, directed=True, exclude=edges)
        rng.shuffle(edges)
        hops = hop_targets(n, edges, params["K"])
        previous = [-1] * n
        previous[0] = 0
        queue = deque([0])
        while queue:
            u = queue.popleft()
            for v in range(n):
                if hops[u] >> v & 1 and previous[v] < 0:
                    previous[v] = u
                    queue.append(v)
        route = [n - 1]
        while route[-1] != 0:
            route.append(previous[route[-1]])
        return {"N": n, "K": params["K"], "edges": edges, "optimum": len(route) - 1,
                "reference": " ".join(map(str, reversed(route)))}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        powers = ", ".join(str(2 ** i) for i in range(k + 1))
        return (
            structure_text("directed graph", n, data["edges"], directed=True) +
            f"In one jump you may move from vertex u to vertex v if the graph has a walk from u to v (following "
            f"edge directions; vertices and edges may repeat) with exactly 2^j edges for some 0 <= j <= {k}, "
            f"i.e. {powers} edges. Find a sequence of jumps from vertex 0 to vertex {n - 1} using as few jumps as "
            "possible.\n\n"
            f"Output Format: a single line with the vertices where you stand, in order, separated by spaces: it "
            f"starts with 0, ends with {n - 1}, and every two consecutive vertices are one jump apart."
        )

    def score(self, data, answer):
        route = parse_ints(answer)
        if not route:
            raise FormatError("empty route")  # the original: an empty answer is a format error (-1)
        n = data["N"]
        if route[0] != 0 or route[-1] != n - 1 or any(not 0 <= v < n for v in route):
            return -0.5
        hops = hop_targets(n, data["edges"], data["K"])
        if any(not hops[u] >> v & 1 for u, v in zip(route, route[1:])):
            return -0.5
        return (data["optimum"] / (len(route) - 1)) ** 5
