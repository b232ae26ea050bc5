"""ImpParty (held-out): a graph on 3N vertices has a 2N-clique; find any N-clique."""

from rlve_jax.gym.environments._common import INVALID, distinct_in_range, edge_lines, fraction_reward, parse_ints
from rlve_jax.gym.env import Environment


class ImpParty(Environment):
    name = "ImpParty"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        vertices = 3 * n
        clique = set(rng.sample(range(vertices), 2 * n))
        edges = [[u, v] for u in range(vertices) for v in range(u + 1, vertices)
                 if (u in clique and v in clique) or rng.random() < 0.5]
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "reference": " ".join(map(str, sorted(clique)[:n]))}

    def prompt(self, data):
        n = data["N"]
        edges = edge_lines(data["edges"], "(no edges)")
        return (
            f"You are given an undirected graph with {3 * n} vertices labeled 0 to {3 * n - 1} and these edges:\n"
            f"{edges}\n\n"
            f"It is guaranteed that the graph contains a clique of {2 * n} vertices. Find any clique of exactly {n} "
            "vertices (every two of them joined by an edge).\n\n"
            f"Output Format: a single line with {n} distinct vertex labels separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        n = data["N"]
        if len(chosen) != n or not distinct_in_range(chosen, 0, 3 * n - 1):
            return INVALID
        members = set(chosen)
        present = sum(u in members and v in members for u, v in data["edges"])
        return fraction_reward(present, n * (n - 1) // 2, beta=5)

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # a repeated vertex
