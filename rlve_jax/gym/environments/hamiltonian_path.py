"""HamiltonianPath (C16): a minimum-weight walk in a weighted digraph visiting every vertex."""

from rlve_jax.gym.environments._common import drop_last_tokens, edge_lines, parse_ints
from rlve_jax.gym.environments._graphs import DENSITIES_005_095, all_pairs_shortest, path_between, walk_weight
from rlve_jax.gym.env import Environment


def cheapest_covering_walk(n: int, edges: list[list[int]]) -> tuple[int, list[int]]:
    """Held-Karp over the shortest-path closure: a walk visiting every vertex (revisits allowed)."""
    dist, prev = all_pairs_shortest(n, edges)
    inf = float("inf")
    full = (1 << n) - 1
    cost = [[inf] * n for _ in range(1 << n)]
    parent = [[-1] * n for _ in range(1 << n)]
    for v in range(n):
        cost[1 << v][v] = 0
    for mask in range(1 << n):
        row = cost[mask]
        for u in range(n):
            if row[u] == inf:
                continue
            for v in range(n):
                if not mask >> v & 1 and row[u] + dist[u][v] < cost[mask | 1 << v][v]:
                    cost[mask | 1 << v][v] = row[u] + dist[u][v]
                    parent[mask | 1 << v][v] = u
    end = min(range(n), key=lambda v: cost[full][v])
    order, mask = [end], full
    while parent[mask][order[-1]] >= 0:
        u = parent[mask][order[-1]]
        mask ^= 1 << order[-1]
        order.append(u)
    order.reverse()
    walk = [order[0]]
    for u, v in zip(order, order[1:]):
        walk += path_between(prev[u], u, v)[1:]
    return cost[full][end], walk


class HamiltonianPath(Environment):
    name = "HamiltonianPath"

    def levels(self, difficulty):
        n = 3 + difficulty
        return [{"N": n, "edge_density": rho} for rho in DENSITIES_005_095 if int(rho * n * (n - 1)) >= n]

    def sample(self, params, rng):
        n = params["N"]
        path = rng.sample(range(n), n)  # the planted Hamiltonian path
        edges = {(s, t): rng.randint(1, n) for s, t in zip(path, path[1:])}
        candidates = [(s, t) for s in range(n) for t in range(n) if s != t and (s, t) not in edges]
        rng.shuffle(candidates)
        for s, t in candidates[:max(0, int(params["edge_density"] * n * (n - 1)) - len(edges))]:
            edges[s, t] = rng.randint(1, max(1, n // 2))  # extra edges are cheaper on average
        edge_list = [[s, t, w] for (s, t), w in edges.items()]
        rng.shuffle(edge_list)
        optimum, walk = cheapest_covering_walk(n, edge_list)
        return {"N": n, "edges": edge_list, "optimum": optimum, "reference": " ".join(map(str, walk))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a directed graph with {n} vertices, labeled from 0 to {n - 1}. Its edges are "
            f"listed below as (s, t, w): a directed edge from vertex s to vertex t with weight w.\n"
            f"{edge_lines(data['edges'])}\n\n"
            "Find a path p1, p2, ..., pk along the edges (consecutive vertices must be joined by an edge "
            "from p_i to p_(i+1)) that visits every vertex at least once; vertices may be revisited and the "
            "path may start anywhere. Minimize the total weight of the edges used.\n\n"
            "Output Format: the vertices of the path in order, separated by spaces."
        )

    def score(self, data, answer):
        walk = parse_ints(answer)
        n = data["N"]
        if any(not 0 <= v < n for v in walk) or len(set(walk)) != n:
            return -0.5
        weight = walk_weight(data["edges"], walk)
        if weight is None:
            return -0.5
        return (data["optimum"] / weight) ** 5

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)  # an optimal walk visits its last vertex only there
