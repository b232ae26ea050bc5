"""TreeEvenPartitioning: split an N*K-vertex tree into N connected parts of exactly K vertices each."""

from rlve_jax.gym.environments._common import (
    INF, adjacency, bfs_distances, fraction_reward, parse_ints, parse_lines, prufer_tree,
)
from rlve_jax.gym.environments._graphs import structure_text
from rlve_jax.gym.env import Environment, FormatError


class TreeEvenPartitioning(Environment):
    name = "TreeEvenPartitioning"
    size_keys = ("MAX_N", "MAX_K")

    def levels(self, difficulty):
        max_n, max_k = 3, 2
        for _ in range(difficulty):  # the two bounds grow in turn
            if max_k < max_n:
                max_k += 1
            else:
                max_n += 1
        return [{"MAX_N": max_n, "MAX_K": max_k}]

    def sample(self, params, rng):
        parts, size = rng.randint(2, params["MAX_N"]), rng.randint(2, params["MAX_K"])
        labels = rng.sample(range(parts * size), parts * size)
        groups = [labels[i * size:(i + 1) * size] for i in range(parts)]
        edges = [[group[u], group[v]] for group in groups for u, v in prufer_tree(size, rng)]
        edges += [[rng.choice(groups[a]), rng.choice(groups[b])] for a, b in prufer_tree(parts, rng)]
        rng.shuffle(edges)
        return {"N": parts, "K": size, "edges": edges,
                "reference": "\n".join(" ".join(map(str, sorted(group))) for group in groups)}

    def prompt(self, data):
        parts, size = data["N"], data["K"]
        total = parts * size
        return (
            structure_text("tree", total, data["edges"]) +
            f"Partition the vertices into {parts} groups of exactly {size} vertices each, so that every vertex "
            "belongs to exactly one group and the vertices of each group form a connected subtree (using only "
            "edges between vertices of that group).\n\n"
            f"Output Format: {parts} lines, one per group, each containing the {size} vertices of the group "
            "separated by spaces."
        )

    def score(self, data, answer):
        parts, size = data["N"], data["K"]
        groups = [parse_ints(line) for line in parse_lines(answer)]
        if len(groups) != parts or any(len(group) != size for group in groups):
            raise FormatError("wrong number or size of groups")
        if sorted(v for group in groups for v in group) != list(range(parts * size)):
            return -0.5
        connected = 0
        for group in groups:
            members = set(group)
            inside = [[u, v] for u, v in data["edges"] if u in members and v in members]
            index = {v: i for i, v in enumerate(group)}
            reach = bfs_distances(adjacency(size, [[index[u], index[v]] for u, v in inside]), 0)
            connected += INF not in reach
        return fraction_reward(connected, parts, beta=5)
