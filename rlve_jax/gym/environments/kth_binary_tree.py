"""Kth_BinaryTree: decode the binary tree with a given index ('Trees Made to Order' numbering).

Index 0 is the empty tree and 1 the single node; trees with fewer nodes come first, and
trees of the same size are ordered by their left subtree, then by their right subtree.
"""

import math
from functools import cache

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5


@cache
def catalan(n: int) -> int:
    return math.comb(2 * n, n) // (n + 1)  # closed form: no recursion depth limit at large sizes


def tree_string(size: int, rank: int) -> str:
    """The rank-th tree (0-based) among trees of `size` nodes, written (L)X(R) without empty parts.

    An explicit stack instead of recursion: a path-shaped tree of a thousand nodes is fine.
    """
    out: list[str] = []
    stack: list[str | tuple[int, int]] = [(size, rank)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        size, rank = item
        if size == 0:
            continue
        for left_size in range(size):
            right_size = size - 1 - left_size
            block = catalan(left_size) * catalan(right_size)
            if rank < block:
                break
            rank -= block
        else:
            raise ValueError("rank out of range")
        # Pushed in reverse of the written order "(" L ")" "X" "(" R ")".
        if right_size:
            stack += [")", (right_size, rank % catalan(right_size)), "("]
        stack.append("X")
        if left_size:
            stack += [")", (left_size, rank // catalan(right_size)), "("]
    return "".join(out)


class Kth_BinaryTree(Environment):
    name = "Kth_BinaryTree"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(3, difficulty)}]  # 3, 4, 6, 9, 13, 19, 28, ...

    def sample(self, params, rng):
        size = rng.randint(1, params["MAX_N"])
        rank = rng.randint(0, catalan(size) - 1)
        index = sum(catalan(s) for s in range(size)) + rank
        return {"index": index, "reference": tree_string(size, rank)}

    def prompt(self, data):
        return (
            "Binary trees are numbered as follows. The empty tree has number 0 and the tree with a single node "
            "has number 1. A tree with fewer nodes always has a smaller number than a tree with more nodes. "
            "Among trees with the same number of nodes, the tree whose left subtree has the smaller number "
            "comes first; if the left subtrees are equal, the tree whose right subtree has the smaller number "
            "comes first. So the trees numbered 2 and 3 are a root with only a right child and a root with "
            "only a left child.\n"
            "A tree is written as follows: the empty tree is the empty string; otherwise write '(' + left "
            "subtree + ')' if the left subtree is not empty, then 'X' for the root, then '(' + right subtree "
            "+ ')' if the right subtree is not empty. For example, the tree with a root, a left child and a "
            "right child is written (X)X(X).\n"
            f"Write the binary tree with number {data['index']}.\n\n"
            "Output Format: a single string made only of the characters X, ( and ), with no spaces."
        )

    def score(self, data, answer):
        if any(ch not in "X()" for ch in answer):
            return -0.5
        return float(answer == data["reference"])
