"""TriumphalArch (POI 2011): the least number of vertices Alice must blacken per turn to stop Bob from
ever stepping on a white vertex of a tree."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, adjacency, bfs_order, prufer_tree
from rlve_jax.gym.environments._graphs import structure_text


def alice_wins(parent: list[int], order: list[int], per_turn: int) -> bool:
    """Bob only ever gains by walking away from the start. need[v] counts blackenings that must happen before
    Bob reaches v: all children of v, plus what the subtrees below still need, minus one turn's worth."""
    need = [0] * len(parent)
    children = [0] * len(parent)
    for v in order[1:]:
        children[parent[v]] += 1
    for v in reversed(order):
        need[v] = max(0, need[v] + children[v] - per_turn)
        if parent[v] >= 0:
            need[parent[v]] += need[v]
    return need[order[0]] == 0


def min_per_turn(n: int, edges: list[list[int]]) -> int:
    parent, order = bfs_order(adjacency(n, edges), 0)
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        if alice_wins(parent, order, middle):
            high = middle
        else:
            low = middle + 1
    return low


class TriumphalArch(ExactIntegerEnvironment):
    name = "TriumphalArch"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = prufer_tree(n, rng)
        return {"N": n, "edges": edges, "reference": str(min_per_turn(n, edges))}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("tree", n, data["edges"]) +
            "Alice and Bob play a game on this tree. At the start, vertex 0 is black, all other vertices are "
            "white, and Bob stands on vertex 0. The players alternate turns, Alice first. On her turn Alice "
            "colors at most K white vertices black (any vertices she likes). On his turn Bob moves to a vertex "
            "adjacent to his current one. Bob wins if he ever stands on a white vertex; Alice wins if that never "
            "happens. What is the minimum K for which Alice has a winning strategy?\n\n"
            "Output Format: a single integer."
        )
