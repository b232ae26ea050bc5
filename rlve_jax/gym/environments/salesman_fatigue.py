"""SalesmanFatigue: for every k, the largest 2 * max(S) + sum(A) over k chosen houses."""

from rlve_jax.gym.environments._common import grow_1p1, score_sequence
from rlve_jax.gym.env import Environment


def max_fatigue(distances: list[int], fatigue: list[int]) -> list[int]:
    """For each k, try every house as the farthest one and add the k-1 largest A among houses no farther."""
    n = len(distances)
    best = [0] * n
    for far in range(n):
        nearer = sorted((fatigue[i] for i in range(n) if i != far and distances[i] <= distances[far]), reverse=True)
        total = 2 * distances[far] + fatigue[far]
        best[0] = max(best[0], total)
        for k, extra in enumerate(nearer, start=1):
            total += extra
            best[k] = max(best[k], total)
    return best


class SalesmanFatigue(Environment):
    name = "SalesmanFatigue"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        distances = sorted(rng.randint(1, n * n // 2) for _ in range(n))
        fatigue = [rng.randint(1, n) for _ in range(n)]
        return {"S": distances, "A": fatigue, "gold": max_fatigue(distances, fatigue)}

    def prompt(self, data):
        n = len(data["S"])
        return (
            f"A street has {n} houses. House i (1 <= i <= {n}) is at distance S[i] from the street entrance and "
            "visiting it costs A[i] fatigue.\n"
            f"S: {' '.join(map(str, data['S']))}\n"
            f"A: {' '.join(map(str, data['A']))}\n"
            "A salesman enters the street, visits some houses and walks back to the entrance. Walking one unit of "
            "distance costs 1 fatigue, so visiting a set of houses costs 2 * (largest S among them) + (sum of "
            f"their A). For every k = 1, 2, ..., {n}, what is the maximum total fatigue over all sets of exactly "
            "k distinct houses?\n\n"
            f"Output Format: a single line with {n} integers separated by spaces: the answers for k = 1, ..., {n}."
        )

    def score(self, data, answer):
        return score_sequence(answer, data["gold"], 5)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))
