"""WeightedBinaryTree: among binary trees with inorder 0..N-1, find the one maximizing the score
score(left) x score(right) + d[root] (empty subtree 1, leaf d) and give its preorder (NOIP 2003)."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, is_permutation, maximization_reward, parse_ints
from rlve_jax.gym.env import Environment


def tree_score(preorder: list[int], points: list[int]) -> int | None:
    """Score of the tree with this preorder and inorder 0..N-1, or None if no such tree exists."""
    position = 0

    def build(low: int, high: int) -> int | None:
        nonlocal position
        if low > high:
            return 1
        root = preorder[position]
        if not low <= root <= high:
            return None
        position += 1
        left = build(low, root - 1)
        right = build(root + 1, high) if left is not None else None
        if right is None:
            return None
        return points[root] if low == high else left * right + points[root]

    return build(0, len(points) - 1)


def best_tree(points: list[int]) -> tuple[int, list[int]]:
    """Interval DP over the root of each inorder range, then the preorder of the best tree."""
    n = len(points)
    best = {(low, low - 1): 1 for low in range(n + 1)}  # empty ranges score 1
    root = {}
    for width in range(1, n + 1):
        for low in range(n - width + 1):
            high = low + width - 1
            if width == 1:
                best[low, high], root[low, high] = points[low], low
                continue
            k = max(range(low, high + 1), key=lambda k: best[low, k - 1] * best[k + 1, high] + points[k])
            best[low, high], root[low, high] = best[low, k - 1] * best[k + 1, high] + points[k], k
    preorder, stack = [], [(0, n - 1)]
    while stack:
        low, high = stack.pop()
        if low <= high:
            k = root[low, high]
            preorder.append(k)
            stack += [(k + 1, high), (low, k - 1)]
    return best[0, n - 1], preorder


class WeightedBinaryTree(Environment):
    name = "WeightedBinaryTree"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        points = [rng.randint(1, 5) for _ in range(n)]
        best, preorder = best_tree(points)
        return {"d": points, "optimum": best, "reference": " ".join(map(str, preorder))}

    def prompt(self, data):
        n = len(data["d"])
        return (
            f"Consider binary trees whose nodes are 0 to {n - 1} and whose inorder traversal is 0, 1, ..., {n - 1}. "
            f"Node i has a score d[i]: {' '.join(f'd[{i}]={v}' for i, v in enumerate(data['d']))}.\n"
            "The score of a subtree is (score of its left subtree) x (score of its right subtree) + d[root]; an "
            "empty subtree scores 1, and a leaf scores its own d. Find the tree with the largest score of the "
            "whole tree.\n\n"
            f"Output Format: a single line with the preorder traversal of that tree (the {n} node numbers "
            "separated by spaces)."
        )

    def score(self, data, answer):
        preorder = parse_ints(answer)
        if not is_permutation(preorder, len(data["d"])):
            return INVALID
        value = tree_score(preorder, data["d"])
        if value is None:
            return 0.0  # a permutation that no tree with this inorder has (the original's 0)
        return maximization_reward(value, data["optimum"], beta=5)
