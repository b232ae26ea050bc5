"""MaximumDivisor: the largest L with sum(floor(A_i / L)) >= K."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int


class MaximumDivisor(Environment):
    name = "MaximumDivisor"

    def levels(self, difficulty):
        n = 3
        for _ in range(difficulty):
            n = int(1.2 * n + 2)
        return [{"N": n}]  # 3, 5, 8, 11, 15, 20, 26, ...

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        k = rng.randint(1, n)
        best = next(length for length in range(max(values), 0, -1) if sum(a // length for a in values) >= k)
        return {"A": values, "K": k, "reference": str(best)}

    def prompt(self, data):
        return (
            f"You are given {len(data['A'])} positive integers: {' '.join(map(str, data['A']))}\n"
            f"Find the largest positive integer L such that the sum of floor(A_i / L) over all the numbers A_i "
            f"is at least {data['K']}.\n\n"
            "Output Format: a single positive integer L."
        )

    def score(self, data, answer):
        length = parse_int(answer)
        if length <= 0:
            return -1.0
        if sum(a // length for a in data["A"]) < data["K"]:
            return -0.5
        return (length / int(data["reference"])) ** 5
