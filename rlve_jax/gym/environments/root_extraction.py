"""RootExtraction: N^(1/K) to 5 decimal places."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, parse_float

PASS_THRESHOLD = (1 / (1 + 1e-4)) ** 2


class RootExtraction(Environment):
    name = "RootExtraction"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(3, difficulty), "MAX_K": 2 + difficulty}]

    def sample(self, params, rng):
        n, k = rng.randint(1, params["MAX_N"]), rng.randint(1, params["MAX_K"])
        return {"N": n, "K": k, "reference": f"{n ** (1 / k):.5f}"}

    def prompt(self, data):
        return (
            f"Compute {data['N']}^(1/{data['K']}), the positive real number x with x^{data['K']} = {data['N']}, "
            "rounded to 5 decimal places.\n\n"
            "Output Format: a single decimal number with 5 digits after the decimal point, e.g. `1.41421`."
        )

    def pass_threshold(self, data):
        return PASS_THRESHOLD

    def score(self, data, answer):
        return (1 / (1 + abs(parse_float(answer) - float(data["reference"])))) ** 2

    def perturb(self, problem, answer):
        return f"{float(answer) + 0.01:.5f}"  # one unit in the 5th decimal would still pass
