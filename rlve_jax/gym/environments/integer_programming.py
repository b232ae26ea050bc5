"""IntegerProgramming: integers satisfying random linear inequalities that a planted point meets with equality."""

from rlve_jax.gym.environments._common import drop_last_tokens, fraction_reward, parse_exact_ints, sweep
from rlve_jax.gym.env import Environment


def linear_text(coefficients: list[int]) -> str:
    terms = [f"{'-' if a < 0 else '+'} {abs(a)}*x[{i}]" for i, a in enumerate(coefficients) if a]
    text = " ".join(terms)
    return text[2:] if text.startswith("+") else "-" + text[2:]


class IntegerProgramming(Environment):
    name = "IntegerProgramming"

    def levels(self, difficulty):
        n = 3 + difficulty
        return [{"N": n, "M": int(m * n)} for m in sweep(1.0, 2.0)]

    def sample(self, params, rng):
        n = params["N"]
        x = [rng.randint(-n, n) for _ in range(n)]
        inequalities = []
        while len(inequalities) < params["M"]:
            a = [rng.choice((-1, 1)) * rng.randint(1, 4) if rng.random() < 0.5 else 0 for _ in range(n)]
            if any(a):  # the planted x meets each inequality with equality: b = a . x
                inequalities.append([a, sum(ai * xi for ai, xi in zip(a, x))])
        return {"N": n, "inequalities": inequalities, "reference": " ".join(map(str, x))}

    def prompt(self, data):
        n = data["N"]
        lines = "\n".join(f"{linear_text(a)} >= {b}" for a, b in data["inequalities"])
        return (
            f"Find integers x[0], ..., x[{n - 1}] that satisfy all of the following inequalities:\n{lines}\n\n"
            f"Output Format: a single line with {n} integers x[0] ... x[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        x = parse_exact_ints(answer, data["N"])
        satisfied = sum(sum(ai * xi for ai, xi in zip(a, x)) >= b for a, b in data["inequalities"])
        return fraction_reward(satisfied, len(data["inequalities"]), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
