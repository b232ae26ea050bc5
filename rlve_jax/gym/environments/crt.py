"""CRT (held-out): a non-negative x satisfying a system of congruences (moduli need not be coprime)."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import fraction_reward, parse_int


class CRT(Environment):
    name = "CRT"

    def levels(self, difficulty):
        max_x, max_m = 5, 2
        for level in range(1, difficulty + 1):  # a three-stage cycle: grow X twice, then add a congruence
            if level % 3:
                max_x = int(1.5 * max_x)
            else:
                max_m += 1
        return [{"MAX_X": max_x, "M": m} for m in range(2, max_m + 1)]

    def sample(self, params, rng):
        x = rng.randint(2, params["MAX_X"])
        moduli = rng.sample(range(2, x + 1), min(params["M"], x - 1))
        return {"congruences": [[x % b, b] for b in moduli], "reference": str(x)}

    def prompt(self, data):
        system = "\n".join(f"x ≡ {r} (mod {b})" for r, b in data["congruences"])
        return (
            "Find a non-negative integer x that satisfies all of the following congruences:\n"
            f"{system}\n\n"
            "Output Format: a single non-negative integer x (any solution is accepted)."
        )

    def score(self, data, answer):
        x = parse_int(answer)
        if x < 0:
            return -1.0
        satisfied = sum(x % b == r for r, b in data["congruences"])
        return fraction_reward(satisfied, len(data["congruences"]), beta=10)
