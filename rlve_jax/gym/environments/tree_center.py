"""TreeCenter: the vertex r of a weighted tree minimizing sum over u of dist(u, r) * C[u]."""

from rlve_jax.gym.environments._common import parse_int, prufer_tree
from rlve_jax.gym.environments._graphs import all_pairs_distances, structure_text
from rlve_jax.gym.env import Environment


def weighted_costs(n: int, edges: list[list[int]], costs: list[int]) -> list[int]:
    dist = all_pairs_distances(n, edges)
    return [int(sum(dist[r][u] * costs[u] for u in range(n))) for r in range(n)]


class TreeCenter(Environment):
    name = "TreeCenter"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u, v, rng.randint(1, n)] for u, v in prufer_tree(n, rng)]
        costs = [rng.randint(1, n) for _ in range(n)]
        totals = weighted_costs(n, edges, costs)
        best = min(range(n), key=lambda r: totals[r])
        return {"N": n, "edges": edges, "C": costs, "optimum": totals[best], "reference": str(best)}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("tree", n, data["edges"], weight="length") +
            f"Each vertex u has a cost C[u]: {' '.join(f'C[{u}]={c}' for u, c in enumerate(data['C']))}\n\n"
            "Choose a vertex r that minimizes the sum over all vertices u of dist(u, r) * C[u], where dist(u, r) "
            "is the total length of the path between u and r.\n\n"
            "Output Format: a single integer, the chosen vertex r."
        )

    def score(self, data, answer):
        r = parse_int(answer)
        if not 0 <= r < data["N"]:
            return -1.0
        return (data["optimum"] / weighted_costs(data["N"], data["edges"], data["C"])[r]) ** 8

    def perturb(self, problem, answer):
        """An out-of-range vertex: a neighbouring id may tie with the optimum."""
        return str(problem.data["N"])
