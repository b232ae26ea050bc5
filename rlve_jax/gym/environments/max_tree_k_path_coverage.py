"""MaxTree_KPathCoverage: choose K vertex pairs of a tree so that their paths cover the most vertices."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, adjacency_sets, edge_lines, grow_1p1, random_tree


def max_covered_vertices(n: int, edges: list[list[int]], k: int) -> int:
    """K paths cover exactly the subtrees with at most 2K leaves (pair the leaves up), so the optimum is a
    subtree grown from one of its leaves r along the 2K-1 longest chains of r's long-path decomposition."""
    adjacent = adjacency_sets(n, edges)
    best = 0
    for root in range(n):
        order, parent = [root], [-1] * n
        for v in order:
            for w in sorted(adjacent[v]):
                if w != parent[v]:
                    parent[w] = v
                    order.append(w)
        height = [1] * n  # vertices on the longest downward path
        chains = []
        for v in reversed(order):
            children = sorted((height[w] for w in adjacent[v] if w != parent[v]), reverse=True)
            if children:
                height[v] += children[0]
                chains += children[1:]  # light children start their own chains
        chains.append(height[root])
        best = max(best, sum(sorted(chains, reverse=True)[:2 * k - 1]))
    return best


class MaxTree_KPathCoverage(ExactIntegerEnvironment):
    name = "MaxTree_KPathCoverage"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng)
        rng.shuffle(edges)
        leaves = sum(len(adj) == 1 for adj in adjacency_sets(n, edges))
        k = rng.randint(1, max(1, leaves // 2 - 1))
        return {"N": n, "K": k, "edges": edges, "reference": str(max_covered_vertices(n, edges, k))}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"You are given a tree with {n} vertices, labeled from 0 to {n - 1}. Its edges are:\n"
            f"{edge_lines(data['edges'])}\n\n"
            f"Choose {k} pair(s) of vertices (u, v). A vertex is covered if it lies on the unique path between "
            "the two vertices of at least one chosen pair (the endpoints included). "
            "What is the maximum possible number of covered vertices?\n\n"
            "Output Format: a single integer."
        )
