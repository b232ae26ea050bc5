"""LinkBeads (APIO 2014 "Beads and wires"): the most blue wire a bead tree can have been built with."""

from rlve_jax.gym.environments._common import (
    ExactIntegerEnvironment, edge_lines, grow_1p1, random_tree, weighted_adjacency,
)


def max_blue_length(n: int, edges: list[list[int]]) -> int:
    """Blue wires come in pairs x - w - y from one Insert. Rooted at the first bead, every pair runs
    parent(w) - w - child(w), and each wire is in at most one pair; a tree DP per root, maximised."""
    adjacent = weighted_adjacency(n, edges)
    best = 0
    for root in range(n):
        order, parent = [root], [-1] * n
        for v in order:
            for w, length in adjacent[v]:
                if w != parent[v]:
                    parent[w] = v
                    order.append(w)
        free = [0] * n  # v is not the middle of a pair using its parent wire
        middle = [None] * n  # v is the middle of a pair: one child wire here, its parent wire added above
        for v in reversed(order):
            gains = []
            for w, length in adjacent[v]:
                if w == parent[v]:
                    continue
                keep = free[w] if middle[w] is None else max(free[w], middle[w] + length)
                free[v] += keep
                gains.append(free[w] + length - keep)
            if gains:
                middle[v] = free[v] + max(gains)
        best = max(best, free[root])
    return best


class LinkBeads(ExactIntegerEnvironment):
    name = "LinkBeads"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u, v, rng.randint(1, n)] for u, v in random_tree(n, rng)]
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "reference": str(max_blue_length(n, edges))}

    def prompt(self, data):
        n = data["N"]
        return (
            "A decoration is built from beads and wires. It starts with a single bead, and then beads are "
            "added one at a time with one of two operations:\n"
            "- Append(w, v): the new bead w is attached to an existing bead v with a red wire.\n"
            "- Insert(w, u, v): the new bead w is inserted into an existing red wire between beads u and v: "
            "that red wire is replaced by two blue wires, u-w and w-v.\n"
            "Every wire has a length, and the finished decoration is a tree.\n\n"
            f"The finished decoration has {n} beads, labeled from 0 to {n - 1}, and these wires, each written "
            "as (u, v, L) for a wire of length L between beads u and v:\n"
            f"{edge_lines(data['edges'])}\n\n"
            "The colors of the wires and the order of the operations are unknown. Over all ways in which "
            "this decoration could have been built (any starting bead), what is the maximum possible total "
            "length of the blue wires?\n\n"
            "Output Format: a single integer."
        )
