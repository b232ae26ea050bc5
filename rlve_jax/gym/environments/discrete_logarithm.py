"""DiscreteLogarithm: the smallest y >= 0 with X^y = K (mod Z)."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int


class DiscreteLogarithm(Environment):
    name = "DiscreteLogarithm"

    def levels(self, difficulty):
        max_z = 10
        for _ in range(difficulty):
            max_z = int(1.2 * max_z + 1)
        return [{"MAX_Z": max_z}]

    def sample(self, params, rng):
        z = rng.randint(2, params["MAX_Z"])
        x, y = rng.randint(2, z), rng.randint(2, z)
        k = pow(x, y, z)
        smallest = next(e for e in range(y + 1) if pow(x, e, z) == k)
        return {"X": x, "Z": z, "K": k, "reference": str(smallest)}

    def prompt(self, data):
        return (
            f"Find the smallest non-negative integer y such that {data['X']}^y is congruent to {data['K']} "
            f"modulo {data['Z']}, i.e. ({data['X']}^y) mod {data['Z']} = {data['K']}.\n\n"
            "Output Format: a single non-negative integer y."
        )

    def score(self, data, answer):
        y = parse_int(answer)
        if y < 0:
            return -1.0
        if pow(data["X"], y, data["Z"]) != data["K"]:
            return 0.0
        return (int(data["reference"]) / y) ** 2 if y else 1.0
