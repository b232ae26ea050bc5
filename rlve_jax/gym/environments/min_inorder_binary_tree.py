"""MinInorderBinaryTree: root and orient a tree as a binary tree with the smallest inorder traversal."""

from rlve_jax.gym.environments._common import PermutationAnswer


def smallest_inorder(n: int, edges: list[list[int]]) -> list[int]:
    """Try every root of degree <= 2; below a root, each subtree's best inorder is fixed-length, so it composes."""
    neighbours = {v: [] for v in range(1, n + 1)}
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)

    def best(v: int, parent: int) -> list[int]:
        below = [best(c, v) for c in neighbours[v] if c != parent]
        if not below:
            return [v]
        if len(below) == 1:
            return min(below[0] + [v], [v] + below[0])
        return min(below[0] + [v] + below[1], below[1] + [v] + below[0])

    return min(best(root, 0) for root in range(1, n + 1) if len(neighbours[root]) <= 2)


class MinInorderBinaryTree(PermutationAnswer):
    name = "MinInorderBinaryTree"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        labels = list(range(1, n + 1))
        rng.shuffle(labels)
        child_count, edges = [0] * n, []
        for node in range(1, n):
            parent = rng.choice([p for p in range(node) if child_count[p] < 2])
            child_count[parent] += 1
            edge = [labels[parent], labels[node]]
            rng.shuffle(edge)
            edges.append(edge)
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "gold": smallest_inorder(n, edges)}

    def prompt(self, data):
        edges = "\n".join(f"{u} {v}" for u, v in data["edges"])
        return (
            f"You are given an undirected tree with {data['N']} vertices numbered 1 to {data['N']}; its edges are:\n"
            f"{edges}\n\n"
            "Turn it into a binary tree: choose a root, and for every vertex decide which of its neighbours (other "
            "than its parent) is the left child and which is the right child (each vertex has at most one left "
            "and at most one right child; a single child may be placed on either side). Among all binary trees "
            "obtainable this way, find the one whose inorder traversal (left subtree, vertex, right subtree) is "
            "lexicographically smallest.\n\n"
            f"Output Format: a single line with the {data['N']} vertices of that inorder traversal, separated by "
            "spaces."
        )
