"""BanyanHeart (held-out): which vertices can end as the 'heart' of a tree grown from vertex 1."""

from rlve_jax.gym.environments._common import adjacency, bfs_order, edge_lines, random_tree
from rlve_jax.gym.env import Environment, FormatError


def possible_hearts(n: int, edges: list[list[int]]) -> list[bool]:
    """possible[v-1]: can vertex v (1-based) be the final heart, over all growth orders from vertex 1?

    Root the tree at 1. Growing a subtree alone leaves the heart a minimal residual depth
    f below its root: the heaviest child subtree's residual (plus one step) is cancelled by
    the other subtrees as far as they reach, and what remains beyond that is only parity.
    Vertex u can be the heart iff, with the root-to-u path contracted, the subtrees hanging
    off the path cancel completely: their count has even parity and the heaviest of them
    (residual f + 1) is outweighed by the rest.
    """
    neighbours = adjacency(n + 1, edges, sort=True)
    parent, order = bfs_order(neighbours, 1)
    children = [[v for v in neighbours[u] if v != parent[u]] for u in range(n + 1)]
    size, residual = [1] * (n + 1), [0] * (n + 1)
    for u in reversed(order):
        size[u] += sum(size[c] for c in children[u])
        residual[u] = _residual(size[u] - 1, [(size[c], residual[c]) for c in children[u]])
    depth = [0] * (n + 1)
    hanging_best: list[tuple[int, int]] = [(0, -1)] * (n + 1)  # heaviest (size, residual) hanging off the path above
    possible = [False] * (n + 1)
    for u in order:
        own = [(size[c], residual[c]) for c in children[u]]
        outside = n - 1 - depth[u]
        possible[u] = _residual(outside, own + [hanging_best[u]]) == 0
        for i, c in enumerate(children[u]):
            depth[c] = depth[u] + 1
            siblings = own[:i] + own[i + 1:]
            hanging_best[c] = max([hanging_best[u]] + siblings)
    return possible[1:]


def _residual(total: int, subtrees: list[tuple[int, int]]) -> int:
    """Minimal heart residual when `total` vertices in the given (size, residual) subtrees are grown."""
    if total == 0:
        return 0
    size, inner = max(subtrees)
    pull = inner + 1
    rest = total - size
    return total % 2 if pull <= rest else pull - rest


class BanyanHeart(Environment):
    name = "BanyanHeart"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u + 1, v + 1] for u, v in random_tree(n, rng, "coin")]
        hearts = possible_hearts(n, edges)
        return {"N": n, "edges": edges, "reference": "".join("T" if h else "F" for h in hearts)}

    def prompt(self, data):
        n = data["N"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"A tree with {n} vertices labeled 1 to {n} is grown as follows:\n"
            "- Initially the tree contains only vertex 1, and its heart is vertex 1.\n"
            "- At each step a new vertex is added and connected by an edge to a vertex already in the tree; "
            "then the heart moves one step toward the new vertex (to its neighbour on the path to the new vertex).\n"
            "- This continues until all vertices have been added.\n\n"
            f"The final tree has these edges:\n{edges}\n\n"
            "Over all orders in which the vertices could have been added (consistent with the final tree), "
            "which vertices can be the heart at the end?\n\n"
            f"Output Format: a single string of {n} characters with no spaces; the i-th character is T if "
            "vertex i can be the final heart and F otherwise."
        )

    def score(self, data, answer):
        text = answer.strip()
        if len(text) != data["N"] or set(text) - {"T", "F"}:
            raise FormatError("expected a T/F string of length N")
        mine = {i for i, c in enumerate(text) if c == "T"}
        gold = {i for i, c in enumerate(data["reference"]) if c == "T"}
        return (len(mine & gold) / len(mine | gold)) ** 5 if mine | gold else 1.0
