"""Maximum_IndependentSet_Tree (held-out): maximum-weight independent set in a vertex-weighted tree."""

from rlve_jax.gym.environments._common import (
    INVALID, adjacency, bfs_order, distinct_in_range, edge_lines, grow_1p1, maximization_reward, parse_ints,
    random_tree,
)
from rlve_jax.gym.env import Environment


def max_weight_independent_set(weights: list[int], edges: list[list[int]]) -> tuple[int, list[int]]:
    """Tree DP (take / skip each vertex), then walk down to rebuild one optimal set."""
    n = len(weights)
    parent, order = bfs_order(adjacency(n, edges, sort=True), 0)
    take, skip = list(weights), [0] * n
    for u in reversed(order):
        if parent[u] >= 0:
            take[parent[u]] += skip[u]
            skip[parent[u]] += max(take[u], skip[u])
    chosen, taken = [], [False] * n
    for u in order:
        if (parent[u] < 0 or not taken[parent[u]]) and take[u] >= skip[u]:
            taken[u] = True
            chosen.append(u)
    return max(take[0], skip[0]), sorted(chosen)


class Maximum_IndependentSet_Tree(Environment):
    name = "Maximum_IndependentSet_Tree"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng, "coin")
        weights = [rng.randint(1, n) for _ in range(n)]
        best, chosen = max_weight_independent_set(weights, edges)
        return {"weights": weights, "edges": edges, "optimum": best, "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        n = len(data["weights"])
        edges = edge_lines(data["edges"], "(no edges)")
        weights = " ".join(f"W[{i}]={w}" for i, w in enumerate(data["weights"]))
        return (
            f"You are given a tree with {n} vertices labeled 0 to {n - 1} and these edges:\n{edges}\n\n"
            f"Vertex weights: {weights}\n\n"
            "Select a set of vertices, no two of them joined by an edge, with the largest possible total weight.\n\n"
            "Output Format: a single line with the selected vertex labels separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        weights = data["weights"]
        if not distinct_in_range(chosen, 0, len(weights) - 1):
            return INVALID
        members = set(chosen)
        if any(u in members and v in members for u, v in data["edges"]):
            return INVALID
        return maximization_reward(sum(weights[v] for v in chosen), data["optimum"], beta=3)

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # a repeated vertex
