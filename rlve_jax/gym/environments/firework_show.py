"""FireworkShow: shorten tree edges at minimum total cost so that every leaf is equally far from the root."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


INF = float("inf")


def min_equalizing_cost(parents: list[int], weights: list[int]) -> int:
    """DP over the common leaf distance L: cost[v][L] = cheapest way to put all leaves of v at distance L.

    Vertex 0 is the root; vertex i > 0 hangs below parents[i] (< i) by an edge of length weights[i].
    """
    n = len(parents)
    horizon = sum(weights)
    children = [[] for _ in range(n)]
    for child in range(1, n):
        children[parents[child]].append(child)
    cost = [None] * n
    for v in range(n - 1, -1, -1):
        if not children[v]:
            cost[v] = [0] + [INF] * horizon
            continue
        total = [0] * (horizon + 1)
        for c in children[v]:
            w = weights[c]
            for dist in range(horizon + 1):
                total[dist] += min((w - kept) + cost[c][dist - kept] for kept in range(min(w, dist) + 1))
        cost[v] = total
    return int(min(cost[0]))


class FireworkShow(ExactIntegerEnvironment):
    name = "FireworkShow"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        parents = [-1] + [rng.randint(0, i - 1) for i in range(1, n)]
        weights = [0] + [rng.randint(1, n) for _ in range(1, n)]
        return {"parents": parents, "weights": weights, "reference": str(min_equalizing_cost(parents, weights))}

    def prompt(self, data):
        parents, weights = data["parents"], data["weights"]
        edges = "\n".join(f"{parents[i] + 1} {i + 1} {weights[i]}" for i in range(1, len(parents)))
        return (
            f"You are given a tree with {len(data['parents'])} vertices numbered 1 to {len(data['parents'])}, "
            "rooted at vertex 1. Each line below gives an edge as `parent child length`:\n"
            f"{edges}\n\n"
            "A leaf is a vertex other than the root that has no children. You may decrease the length of any edge "
            "to any non-negative integer not larger than its current length; decreasing a length by x costs x. "
            "Make all leaves equally distant from the root (distance = sum of edge lengths on the path) with the "
            "minimum total cost.\n\n"
            "Output Format: a single integer, the minimum total cost."
        )
