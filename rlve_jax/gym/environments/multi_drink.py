"""MultiDrink: order the vertices of a tree so that consecutive vertices are at distance at most 2."""

from rlve_jax.gym.environments._graphs import all_pairs_distances, structure_text
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import fraction_reward, parse_ints


class MultiDrink(Environment):
    name = "MultiDrink"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        order = rng.sample(range(n), n)
        adjacent: list[list[int]] = [[] for _ in range(n)]
        edges = []
        for previous, vertex in zip(order, order[1:]):
            parent = rng.choice([previous] + adjacent[previous])  # keeps vertex within distance 2 of previous
            adjacent[parent].append(vertex)
            adjacent[vertex].append(parent)
            edges.append([parent, vertex] if rng.random() < 0.5 else [vertex, parent])
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "reference": " ".join(map(str, order))}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("tree", n, data["edges"]) +
            f"Arrange all {n} vertices in a sequence (each vertex exactly once) so that every two consecutive "
            "vertices in the sequence are at distance at most 2 in the tree (joined by an edge, or both adjacent "
            "to a common vertex).\n\n"
            "Output Format: a single line with the vertices in order, separated by spaces."
        )

    def score(self, data, answer):
        order = parse_ints(answer)
        n = data["N"]
        if sorted(order) != list(range(n)):
            return -0.5
        dist = all_pairs_distances(n, data["edges"])
        close = sum(dist[u][v] <= 2 for u, v in zip(order, order[1:]))
        return fraction_reward(close, n - 1, beta=5)
