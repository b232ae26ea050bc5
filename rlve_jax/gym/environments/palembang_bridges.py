"""PalembangBridges: build K (1 or 2) bridges on a river so that the sum over people of the shortest
|bridge - home| + |bridge - office| is minimal (after APIO 2015 "Palembang Bridges")."""

from itertools import combinations_with_replacement

from rlve_jax.gym.environments._common import minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def travel_cost(people: list[list[int]], bridges: list[int]) -> int:
    return sum(min(abs(p - s) + abs(p - t) for p in bridges) for s, t in people)


def best_bridges(people: list[list[int]], count: int) -> tuple[int, list[int]]:
    """For a fixed split of the people between the bridges, each bridge's cost is a sum of |p - x| over
    endpoints x, minimized at an endpoint; so trying every choice of endpoints is exact."""
    endpoints = sorted({x for person in people for x in person})
    bridges = min(combinations_with_replacement(endpoints, count), key=lambda b: travel_cost(people, list(b)))
    return travel_cost(people, list(bridges)), list(bridges)


class PalembangBridges(Environment):
    name = "PalembangBridges"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        people = [[rng.randint(0, n), rng.randint(0, n)] for _ in range(n)]
        count = rng.randint(1, 2)
        best, bridges = best_bridges(people, count)
        return {"people": people, "K": count, "optimum": best, "reference": " ".join(map(str, bridges))}

    def prompt(self, data):
        people = "\n".join(f"Person {i + 1}: S={s}, T={t}" for i, (s, t) in enumerate(data["people"]))
        k = data["K"]
        return (
            "A river runs along a number line; every person lives at position S on one side of the river and "
            f"works at position T on the other side:\n{people}\n\n"
            f"Build {k} bridge{'s' if k > 1 else ''} at integer positions. A person who uses a bridge at position "
            "P travels |P - S| + |P - T|, and everyone uses the bridge that is best for them. Minimize the total "
            "travel distance of all people.\n\n"
            f"Output Format: a single line with {k} integer{'s' if k > 1 else ''} (the bridge positions) separated "
            "by spaces."
        )

    def score(self, data, answer):
        bridges = parse_ints(answer)
        if len(bridges) != data["K"]:
            return -0.5
        return minimization_reward(data["optimum"], travel_cost(data["people"], bridges), beta=5)

    def perturb(self, problem, answer):
        """Every bridge at 3N: each person then travels more than 2N, more than from any position in [0, N]."""
        far = 3 * len(problem.data["people"])
        return " ".join([str(far)] * problem.data["K"])
