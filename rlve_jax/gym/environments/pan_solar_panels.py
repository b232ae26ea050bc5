"""PanSolarPanels: choose X in [A, B] and Y in [C, D] with the largest gcd(X, Y)."""

import math

from rlve_jax.gym.environments._common import grow_1p5, parse_pair
from rlve_jax.gym.env import Environment


def has_multiple(low: int, high: int, g: int) -> bool:
    return high // g > (low - 1) // g


class PanSolarPanels(Environment):
    name = "PanSolarPanels"

    def levels(self, difficulty):
        return [{"MAX_A_B_C_D": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        limit = params["MAX_A_B_C_D"]
        a, b = sorted((rng.randint(1, limit), rng.randint(1, limit)))
        c, d = sorted((rng.randint(1, limit), rng.randint(1, limit)))
        g = next(g for g in range(min(b, d), 0, -1) if has_multiple(a, b, g) and has_multiple(c, d, g))
        x, y = (a + g - 1) // g * g, (c + g - 1) // g * g
        return {"A": a, "B": b, "C": c, "D": d, "best": g, "reference": f"{x} {y}"}

    def prompt(self, data):
        return (
            f"Choose integers X and Y with {data['A']} <= X <= {data['B']} and {data['C']} <= Y <= {data['D']} "
            "so that the greatest common divisor gcd(X, Y) is as large as possible.\n\n"
            "Output Format: a single line with X and Y separated by a space."
        )

    def score(self, data, answer):
        x, y = parse_pair(answer)
        if not (data["A"] <= x <= data["B"] and data["C"] <= y <= data["D"]):
            return -0.5
        return (math.gcd(x, y) / data["best"]) ** 3
