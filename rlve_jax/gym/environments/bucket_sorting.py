"""BucketSorting: report a most frequent value of an array (any mode is accepted)."""

from collections import Counter

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_int


class BucketSorting(Environment):
    name = "BucketSorting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty), "MAX": 2 + difficulty}]

    def sample(self, params, rng):
        values = [rng.randint(0, params["MAX"]) for _ in range(params["N"])]
        counts = Counter(values)
        top = max(counts.values())
        return {"A": values, "modes": sorted(v for v, c in counts.items() if c == top)}

    def prompt(self, data):
        return (
            f"You are given an array of {len(data['A'])} integers: {' '.join(map(str, data['A']))}\n"
            "Find a value that appears the most times in the array. If several values tie, any of them is "
            "accepted.\n\n"
            "Output Format: a single integer, the value."
        )

    def score(self, data, answer):
        value = parse_int(answer)
        if value not in data["A"]:
            return INVALID
        return float(value in data["modes"])

    def reference(self, problem):
        return str(problem.data["modes"][0])

    def perturb(self, problem, answer):
        others = [v for v in problem.data["A"] if v not in problem.data["modes"]]
        return str(others[0]) if others else str(max(problem.data["A"]) + 1)
