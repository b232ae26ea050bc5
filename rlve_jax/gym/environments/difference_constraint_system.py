"""DifferenceConstraintSystem: find integers satisfying constraints x[i] - x[j] <= c (planted solution)."""

from rlve_jax.gym.environments._common import drop_last_tokens, fraction_reward, grow_1p1, parse_exact_ints, sweep
from rlve_jax.gym.env import Environment


class DifferenceConstraintSystem(Environment):
    name = "DifferenceConstraintSystem"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return [{"N": n, "M": int(m * n)} for m in sweep(1.0, 2.0)]

    def sample(self, params, rng):
        n = params["N"]
        x = [rng.randint(-n, n) for _ in range(n)]
        constraints = []
        for _ in range(params["M"]):
            i, j = rng.sample(range(n), 2)
            constraints.append([i, j, x[i] - x[j] + rng.randint(0, 5)])
        return {"N": n, "constraints": constraints, "reference": " ".join(map(str, x))}

    def prompt(self, data):
        n = data["N"]
        lines = "\n".join(f"x[{i}] - x[{j}] <= {c}" for i, j, c in data["constraints"])
        return (
            f"Find integers x[0], ..., x[{n - 1}] that satisfy all of the following constraints:\n{lines}\n\n"
            f"Output Format: a single line with {n} integers x[0] ... x[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        x = parse_exact_ints(answer, data["N"])
        satisfied = sum(x[i] - x[j] <= c for i, j, c in data["constraints"])
        return fraction_reward(satisfied, len(data["constraints"]), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
