"""TreeDynamic_XORZeroPath: pairs of vertices joined by a path with XOR 0, before and after each deletion
of a tree edge."""

from collections import Counter

from rlve_jax.gym.environments._common import IntListEnvironment, prufer_tree, weighted_adjacency
from rlve_jax.gym.env import Problem


def zero_xor_pairs(n: int, edges: list[list[int]]) -> int:
    """In a forest, u and v have a zero-XOR path iff they share a component and an XOR potential."""
    adjacent = weighted_adjacency(n, edges)
    label: list[tuple[int, int] | None] = [None] * n  # (component root, XOR from the root)
    for root in range(n):
        if label[root] is not None:
            continue
        label[root], stack = (root, 0), [root]
        while stack:
            v = stack.pop()
            for u, w in adjacent[v]:
                if label[u] is None:
                    label[u] = (root, label[v][1] ^ w)
                    stack.append(u)
    return sum(c * (c - 1) // 2 for c in Counter(label).values())


class TreeDynamic_XORZeroPath(IntListEnvironment):
    name = "TreeDynamic_XORZeroPath"
    match_beta = 5

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u, v, rng.randint(0, n)] for u, v in prufer_tree(n, rng)]
        deletion = rng.sample(range(n - 1), n - 1)
        gold = [zero_xor_pairs(n, [edges[i] for i in deletion[step:]]) for step in range(n)]
        return {"N": n, "edges": edges, "deletion": deletion, "gold": gold}

    def prompt(self, data):
        n = data["N"]
        listing = "\n".join(f"edge {i}: ({u}, {v}, {w})" for i, (u, v, w) in enumerate(data["edges"]))
        return (
            f"You are given a tree with {n} vertices, labeled from 0 to {n - 1}. Its edges are listed below, "
            f"each as (u, v, w): an edge between u and v with weight w.\n{listing}\n\n"
            f"The edges are then deleted one at a time, in this order of edge numbers: "
            f"{' '.join(map(str, data['deletion']))}.\n"
            "For an unordered pair of distinct vertices (u, v) joined by a path of remaining edges, the path's "
            "value is the bitwise XOR of the weights of its edges. Count the pairs whose path value is 0 (pairs "
            "with no path between them do not count): first before any deletion, then after each deletion.\n\n"
            f"Output Format: a single line with {n} integers separated by spaces: the count before any deletion, "
            "then the count after each deletion in order."
        )

    def perturb(self, problem: Problem, answer: str) -> str:
        """Change the first count: after the last deletion the count is always 0, so it is a poor probe."""
        first, *rest = answer.split()
        return " ".join([str(int(first) + 1)] + rest)
