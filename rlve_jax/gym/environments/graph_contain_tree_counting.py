"""GraphContainTreeCounting: count the bijections from a tree's vertices to a graph's that keep every tree edge."""

from rlve_jax.gym.environments._common import (
    adjacency_masks, adjacency_sets, edge_lines, perturb_count, random_tree, score_count,
)
from rlve_jax.gym.environments._graphs import DENSITIES_01_09, density_levels, pair_count, random_pairs
from rlve_jax.gym.env import Environment


def count_tree_embeddings(n: int, tree: list[list[int]], graph: list[list[int]]) -> int:
    """Bijections = inclusion-exclusion over the image set S of homomorphisms T -> G[S].

    hom(S) is a tree DP (ways[a][x] = maps of a's subtree with a -> x); sum_S (-1)^(n-|S|) hom(S)
    keeps exactly the maps whose image is all n vertices, i.e. the bijections. A leaf child
    contributes just the number of x's neighbours inside S.
    """
    tree_adjacent = adjacency_sets(n, tree)
    order, parent = [0], [-1] * n
    for a in order:
        for b in sorted(tree_adjacent[a]):
            if b != parent[a]:
                parent[b] = a
                order.append(b)
    children = [[b for b in order if parent[b] == a] for a in range(n)]
    internal = [a for a in reversed(order) if children[a]]
    leaf_children = [sum(not children[b] for b in children[a]) for a in range(n)]
    inner_children = [[b for b in children[a] if children[b]] for a in range(n)]
    graph_masks = adjacency_masks(n, graph)
    graph_lists = [[y for y in range(n) if graph_masks[x] >> y & 1] for x in range(n)]
    total = 0
    for mask in range(1, 1 << n):
        inside = [x for x in range(n) if mask >> x & 1]
        degree = [(graph_masks[x] & mask).bit_count() for x in range(n)]
        neighbours = [[y for y in graph_lists[x] if mask >> y & 1] for x in range(n)]
        ways: list[list[int]] = [[]] * n
        for a in internal:
            vector = [0] * n
            for x in inside:
                value = degree[x] ** leaf_children[a]
                for b in inner_children[a]:
                    value *= sum(map(ways[b].__getitem__, neighbours[x]))
                vector[x] = value
            ways[a] = vector
        homomorphisms = sum(ways[0])
        total += -homomorphisms if (n - len(inside)) % 2 else homomorphisms
    return total


class GraphContainTreeCounting(Environment):
    name = "GraphContainTreeCounting"

    def levels(self, difficulty):
        n = 4 + difficulty
        return density_levels(n, DENSITIES_01_09, min_edges=n - 1)

    def sample(self, params, rng):
        """G holds a relabeled copy of T plus random extra edges, so the count is at least 1."""
        n = params["N"]
        tree = random_tree(n, rng)
        relabel = list(range(n))
        rng.shuffle(relabel)
        planted = [[relabel[a], relabel[b]] for a, b in tree]
        graph = planted + random_pairs(n, int(params["edge_density"] * pair_count(n)) - (n - 1), rng, exclude=planted)
        rng.shuffle(graph)
        return {"N": n, "tree": tree, "graph": graph, "reference": str(count_tree_embeddings(n, tree, graph))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a tree T with {n} vertices labeled from 0 to {n - 1}; its edges are:\n"
            f"{edge_lines(data['tree'])}\n\n"
            f"You are also given an undirected graph G with {n} vertices labeled from 0 to {n - 1}; its edges are:\n"
            f"{edge_lines(data['graph'])}\n\n"
            "Count the bijections p from the vertices of T to the vertices of G (p maps distinct vertices "
            "to distinct vertices) such that for every edge (u, v) of T, (p(u), p(v)) is an edge of G.\n\n"
            "Output Format: a single integer, the number of such bijections."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)

    perturb = perturb_count
