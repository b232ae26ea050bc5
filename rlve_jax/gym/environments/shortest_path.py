"""ShortestPath (C16): a minimum-weight path from 0 to N-1 in a weighted directed graph."""

from rlve_jax.gym.environments._common import edge_lines, grow_1p1, parse_ints
from rlve_jax.gym.environments._graphs import all_pairs_shortest, path_between, walk_weight
from rlve_jax.gym.env import Environment, FormatError

EDGE_DENSITIES = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


class ShortestPath(Environment):
    name = "ShortestPath"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        return [{"N": n, "edge_density": rho} for rho in EDGE_DENSITIES]

    def sample(self, params, rng):
        n = params["N"]
        path = [0] + rng.sample(range(1, n - 1), n - 2) + [n - 1]
        light = max(1, n // 3)
        edges = {(s, t): rng.randint(1, light) for s, t in zip(path, path[1:])}
        target_count = int(params["edge_density"] * n * (n - 1))
        candidates = [(s, t) for s in range(n) for t in range(n)
                      if s != t and (s, t) != (0, n - 1) and (s, t) not in edges]
        rng.shuffle(candidates)
        for s, t in candidates[:max(0, target_count - len(edges))]:
            edges[s, t] = rng.randint(max(1, n // 2), n)
        # Break two-hop shortcuts 0 -> t -> N-1 that would bypass the planted path.
        for t in range(1, n - 1):
            if (0, t) in edges and (t, n - 1) in edges:
                del edges[(0, t) if t == path[-2] else (t, n - 1)]
        edge_list = [[s, t, w] for (s, t), w in edges.items()]
        rng.shuffle(edge_list)
        dist, prev = all_pairs_shortest(n, edge_list)
        best = path_between(prev[0], 0, n - 1)
        return {"N": n, "edges": edge_list, "optimum": dist[0][n - 1], "reference": " ".join(map(str, best))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a directed graph with {n} vertices, labeled from 0 to {n - 1}. Its edges are "
            f"listed below as (s, t, w): a directed edge from vertex s to vertex t with weight w.\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"Find a path from vertex 0 to vertex {n - 1} with the minimum possible total weight.\n\n"
            f"Output Format: the vertices of the path in order, separated by spaces, starting with 0 and "
            f"ending with {n - 1} (for example `0 {n // 2} {n - 1}`)."
        )

    def score(self, data, answer):
        walk = parse_ints(answer)
        if not walk:
            raise FormatError("empty path")  # the original: an empty answer is a format error (-1)
        n = data["N"]
        if walk[0] != 0 or walk[-1] != n - 1 or any(not 0 <= v < n for v in walk):
            return -0.5
        weight = walk_weight(data["edges"], walk)
        if weight is None:
            return -0.5
        return (data["optimum"] / weight) ** 5

    def perturb(self, problem, answer):
        return answer + " 0"  # ends at vertex 0 instead of N-1
