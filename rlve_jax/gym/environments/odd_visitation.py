"""OddVisitation: a walk in a connected graph that visits every vertex an odd number of times."""

from rlve_jax.gym.environments._common import adjacency, grow_1p1, parse_ints, prufer_tree
from rlve_jax.gym.environments._graphs import RATIOS_1_2, random_pairs, ratio_levels, structure_text
from rlve_jax.gym.env import Environment

def odd_walk(n: int, tree: list[list[int]]) -> list[int]:
    """Depth-first walk over a spanning tree that re-enters a child (and comes back) whenever the child's
    visit count is even; at the end the root's surplus visit, if any, is the walk's last vertex, dropped."""
    adjacent = adjacency(n, tree)
    walk, odd = [0], [False] * n
    odd[0] = True
    stack = [(0, -1, iter(adjacent[0]))]
    while stack:
        vertex, parent, children = stack[-1]
        child = next((c for c in children if c != parent), None)
        if child is not None:
            walk.append(child)
            odd[child] = not odd[child]
            stack.append((child, vertex, iter(adjacent[child])))
            continue
        stack.pop()
        if parent >= 0:
            walk.append(parent)
            odd[parent] = not odd[parent]
            if not odd[vertex]:
                walk += [vertex, parent]
                odd[vertex] = True
                odd[parent] = not odd[parent]
    if not odd[0]:
        walk.pop()
    return walk


class OddVisitation(Environment):
    name = "OddVisitation"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return ratio_levels(n, RATIOS_1_2)

    def sample(self, params, rng):
        n = params["N"]
        tree = prufer_tree(n, rng)
        edges = tree + random_pairs(n, int(params["edge_ratio"] * n) - len(tree), rng, exclude=tree, flip=True)
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "reference": " ".join(map(str, odd_walk(n, tree)))}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("connected undirected graph", n, data["edges"]) +
            "Find a walk v1, v2, ..., vk in this graph (every two consecutive vertices must be joined by an edge; "
            "vertices and edges may repeat; the walk may start and end anywhere) in which every vertex of the "
            "graph appears an odd number of times.\n\n"
            "Output Format: a single line with the vertices of the walk in order, separated by spaces."
        )

    def score(self, data, answer):
        walk = parse_ints(answer)
        n = data["N"]
        present = {(min(u, v), max(u, v)) for u, v in data["edges"]}
        if any(not 0 <= v < n for v in walk) or any((min(u, v), max(u, v)) not in present
                                                    for u, v in zip(walk, walk[1:])):
            return -0.5
        counts = [0] * n
        for v in walk:
            counts[v] += 1
        return float(all(c % 2 for c in counts))
