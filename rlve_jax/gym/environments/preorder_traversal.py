"""PreorderTraversal: rebuild a binary tree from its inorder and postorder traversals; give the preorder."""

from rlve_jax.gym.environments._common import grow_1p1, score_sequence
from rlve_jax.gym.env import Environment


def traversals(left: dict[int, int], right: dict[int, int], root: int) -> tuple[list[int], list[int], list[int]]:
    """(preorder, inorder, postorder) of the tree given by child maps."""
    if root == 0:
        return [], [], []
    pre_l, in_l, post_l = traversals(left, right, left.get(root, 0))
    pre_r, in_r, post_r = traversals(left, right, right.get(root, 0))
    return [root] + pre_l + pre_r, in_l + [root] + in_r, post_l + post_r + [root]


class PreorderTraversal(Environment):
    name = "PreorderTraversal"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        labels = list(range(1, params["N"] + 1))
        rng.shuffle(labels)
        left: dict[int, int] = {}
        right: dict[int, int] = {}
        for node in labels[1:]:  # walk down from the root by random turns to a free child slot
            parent = labels[0]
            while True:
                side = left if rng.random() < 0.5 else right
                if parent not in side:
                    side[parent] = node
                    break
                parent = side[parent]
        preorder, inorder, postorder = traversals(left, right, labels[0])
        return {"inorder": inorder, "postorder": postorder, "gold": preorder}

    def prompt(self, data):
        return (
            f"A binary tree has {len(data['inorder'])} nodes with distinct labels.\n"
            f"Its inorder traversal is: {' '.join(map(str, data['inorder']))}\n"
            f"Its postorder traversal is: {' '.join(map(str, data['postorder']))}\n"
            "Give its preorder traversal (node, left subtree, right subtree).\n\n"
            f"Output Format: a single line with the {len(data['inorder'])} labels separated by spaces."
        )

    def score(self, data, answer):
        return score_sequence(answer, data["gold"], 10, wrong_length=0.0)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))
