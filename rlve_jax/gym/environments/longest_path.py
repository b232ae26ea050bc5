"""LongestPath: the heaviest simple path in an edge-weighted digraph."""

from rlve_jax.gym.environments._common import drop_last_tokens, maximization_reward, parse_ints
from rlve_jax.gym.environments._graphs import (
    DENSITIES_005_095, WEIGHTED_ARCS, density_levels, graph_text, pair_count, random_pairs,
)
from rlve_jax.gym.env import Environment, FormatError


def longest_simple_path(n: int, edges: list[list[int]]) -> list[int]:
    """Bitmask DP over (visited set, last vertex); returns an optimal vertex sequence."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for s, t, w in edges:
        out[s].append((t, w))
    weight: list[list[int] | None] = [None] * (1 << n)  # weight[mask][v]: heaviest path over mask ending at v
    previous: list[list[int] | None] = [None] * (1 << n)
    for v in range(n):
        weight[1 << v], previous[1 << v] = [-1] * n, [-1] * n
        weight[1 << v][v] = 0
    top = (0, 1, 0)
    for mask in range(1, 1 << n):
        here = weight[mask]
        if here is None:
            continue
        for v in range(n):
            if here[v] < 0:
                continue
            top = max(top, (here[v], mask, v))
            for t, w in out[v]:
                if mask >> t & 1:
                    continue
                grown = mask | 1 << t
                if weight[grown] is None:
                    weight[grown], previous[grown] = [-1] * n, [-1] * n
                if weight[grown][t] < here[v] + w:
                    weight[grown][t], previous[grown][t] = here[v] + w, v
    _, mask, v = top
    path = []
    while v >= 0:
        path.append(v)
        mask, v = mask & ~(1 << v), previous[mask][v]
    return path[::-1]


class LongestPath(Environment):
    name = "LongestPath"

    def levels(self, difficulty):
        return density_levels(4 + difficulty, DENSITIES_005_095, directed=True)

    def sample(self, params, rng):
        n = params["N"]
        pairs = random_pairs(n, int(params["edge_density"] * pair_count(n, directed=True)), rng, directed=True)
        edges = [[s, t, rng.randint(1, n)] for s, t in pairs]
        path = longest_simple_path(n, edges)
        weight = {(s, t): w for s, t, w in edges}
        return {"N": n, "edges": edges, "optimum": sum(weight[e] for e in zip(path, path[1:])),
                "reference": " ".join(map(str, path))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], directed=True, edge_form=WEIGHTED_ARCS)
            + "Find a simple path p1, p2, ..., pk (no vertex repeated; for every consecutive pair there is a "
            "directed edge from p_i to p_{i+1}) whose total edge weight is as large as possible.\n\n"
            "Output Format: a single line with the vertices of the path in order, separated by spaces."
        )

    def score(self, data, answer):
        path = parse_ints(answer)
        if not path:
            raise FormatError("empty path")  # the original: an empty answer is a format error (-1)
        weight = {(s, t): w for s, t, w in data["edges"]}
        if (len(set(path)) != len(path) or any(not 0 <= v < data["N"] for v in path)
                or any(e not in weight for e in zip(path, path[1:]))):
            return -0.5
        return maximization_reward(sum(weight[e] for e in zip(path, path[1:])), data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
