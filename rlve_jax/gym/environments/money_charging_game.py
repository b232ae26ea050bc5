"""MoneyChargingGame: probability that first draw times follow tree-shaped precedence constraints."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, adjacency, bfs_order, grow_1p1, random_tree

MOD = 998244353


def precedence_probability(weights: list[list[int]], edges: list[list[int]]) -> int:
    """P(T_u < T_v for every constraint [u, v]) modulo MOD.

    With fixed weights, P(u is drawn first among a set S) = W_u / W(S), and for an out-tree these
    events multiply. Constraints pointing towards the root are handled by inclusion-exclusion
    (no constraint minus the reversed one), so the DP tracks the total weight of the out-tree
    component that contains each vertex.
    """
    n = len(weights)
    neighbours = adjacency(n, edges)
    before = {(u, v) for u, v in edges}
    parent, order = bfs_order(neighbours, 0)
    dp: list[dict[int, int]] = [{} for _ in range(n)]
    for u in reversed(order):
        inverse_total = pow(sum(weights[u]), MOD - 2, MOD)
        table = {w + 1: weights[u][w] * (w + 1) * inverse_total % MOD for w in range(3)}
        for v in neighbours[u]:
            if v == parent[u]:
                continue
            merged: dict[int, int] = {}
            if (v, u) in before:  # the child must come first: all orders minus "parent first"
                child_total = sum(dp[v].values()) % MOD
                for a, x in table.items():
                    merged[a] = (merged.get(a, 0) + x * child_total) % MOD
            sign = -1 if (v, u) in before else 1
            for a, x in table.items():
                for b, y in dp[v].items():
                    merged[a + b] = (merged.get(a + b, 0) + sign * x * y) % MOD
            table = merged
        dp[u] = {s: x * pow(s, MOD - 2, MOD) % MOD for s, x in table.items()}
    return sum(dp[0].values()) % MOD


class MoneyChargingGame(ModCountingEnvironment):
    name = "MoneyChargingGame"

    def levels(self, difficulty):
        return [{"N": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        weights = [[rng.randint(1, n) for _ in range(3)] for _ in range(n)]
        edges = random_tree(n, rng, "shuffle")  # each [u, v] is already randomly oriented: T_u < T_v
        return {"N": n, "weights": weights, "edges": edges, "mod": MOD,
                "gold": precedence_probability(weights, edges)}

    def prompt(self, data):
        n = data["N"]
        nodes = "\n".join(f"node {i}: A = {a}, B = {b}, C = {c}" for i, (a, b, c) in enumerate(data["weights"]))
        constraints = "\n".join(f"T[{u}] < T[{v}]" for u, v in data["edges"])
        return (
            f"There are {n} nodes numbered 0 to {n - 1}. Each node i independently receives a hidden weight W[i]: "
            f"W[i] = 1 with probability A/(A+B+C), 2 with probability B/(A+B+C) and 3 with probability C/(A+B+C), "
            f"where A, B, C are the node's numbers below:\n{nodes}\n"
            f"Then nodes are drawn one at a time, with replacement: at each draw node i is chosen with probability "
            f"W[i] / (W[0] + ... + W[{n - 1}]). Drawing continues until every node has been drawn at least once. "
            f"Let T[i] be the index of the draw in which node i is drawn for the first time.\n"
            f"What is the probability that all of the following hold?\n{constraints}\n\n"
            f"Output Format: a single integer. The probability is a fraction P/Q in lowest terms; output "
            f"P * Q^(-1) modulo {MOD}."
        )
