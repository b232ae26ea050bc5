"""TreeAddOneEdgeDiameter: add one edge of weight L to a weighted tree to minimize the graph's diameter."""

from rlve_jax.gym.environments._common import parse_ints, prufer_tree
from rlve_jax.gym.environments._graphs import all_pairs_distances, structure_text
from rlve_jax.gym.env import Environment, FormatError


def diameter_with_edge(dist: list[list[float]], x: int, y: int, length: int) -> float:
    """Largest shortest-path distance once x-y (weight `length`) is added: a shortest path uses it at most once."""
    n = len(dist)
    return max(min(dist[u][v], dist[u][x] + length + dist[y][v], dist[u][y] + length + dist[x][v])
               for u in range(n) for v in range(u + 1, n))


class TreeAddOneEdgeDiameter(Environment):
    name = "TreeAddOneEdgeDiameter"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u, v, rng.randint(0, n)] for u, v in prufer_tree(n, rng)]
        length = rng.randint(0, n)
        dist = all_pairs_distances(n, edges)
        optimum, x, y = min((diameter_with_edge(dist, x, y, length), x, y) for x in range(n) for y in range(x, n))
        return {"N": n, "edges": edges, "L": length, "optimum": int(optimum), "reference": f"{x} {y}"}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("tree", n, data["edges"], weight="length") +
            f"Add exactly one new edge of length {data['L']} between two vertices x and y of your choice. The "
            "diameter of the resulting graph is the largest shortest-path distance between any two vertices. "
            "Choose x and y to minimize this diameter.\n\n"
            "Output Format: a single line with the two integers x and y separated by a space."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != 2:
            raise FormatError("expected two vertices")
        x, y = values
        n = data["N"]
        if not (0 <= x < n and 0 <= y < n):
            return -0.5
        diameter = diameter_with_edge(all_pairs_distances(n, data["edges"]), x, y, data["L"])
        return 1.0 if diameter == 0 else (data["optimum"] / diameter) ** 5

    def perturb(self, problem, answer):
        """An out-of-range endpoint: other edges often reach the same diameter."""
        return f"{answer.split()[0]} {problem.data['N']}"
