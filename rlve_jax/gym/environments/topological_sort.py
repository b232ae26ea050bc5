"""TopologicalSort: a permutation consistent with a set of "a comes before b" constraints."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import fraction_reward, grow_1p1, parse_ints


class TopologicalSort(Environment):
    name = "TopologicalSort"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        order = rng.sample(range(n), n)
        constraints = []
        for i in range(1, n):  # every vertex but the first gets at least one predecessor constraint
            constraints += [[before, order[i]] for before in rng.sample(order[:i], rng.randint(1, min(i, 3)))]
        rng.shuffle(constraints)
        return {"N": n, "constraints": constraints, "reference": " ".join(map(str, order))}

    def prompt(self, data):
        n = data["N"]
        listing = "\n".join(f"{a} must come before {b}" for a, b in data["constraints"])
        return (
            f"Arrange the numbers 0 to {n - 1} in a sequence (each exactly once) that satisfies all of the "
            f"following constraints:\n{listing}\n\n"
            f"Output Format: a single line with the {n} numbers in order, separated by spaces."
        )

    def score(self, data, answer):
        order = parse_ints(answer)
        n = data["N"]
        if sorted(order) != list(range(n)):
            return -0.5
        position = {v: i for i, v in enumerate(order)}
        satisfied = sum(position[a] < position[b] for a, b in data["constraints"])
        return fraction_reward(satisfied, len(data["constraints"]), beta=10)
