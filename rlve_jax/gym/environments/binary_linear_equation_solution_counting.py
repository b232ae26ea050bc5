"""BinaryLinearEquation_SolutionCounting: integer points (x, y) of a box on the line A*x + B*y + C = 0."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import score_count


def count_solutions(a: int, b: int, c: int, x_range: list[int], y_range: list[int]) -> int:
    """Walk x over its range (the range is the instance size) and test y for integrality."""
    (x1, x2), (y1, y2) = x_range, y_range
    if b == 0:
        xs = sum(a * x + c == 0 for x in range(x1, x2 + 1))
        return xs * (y2 - y1 + 1)
    return sum((-(a * x + c)) % b == 0 and y1 <= -(a * x + c) // b <= y2 for x in range(x1, x2 + 1))


class BinaryLinearEquation_SolutionCounting(Environment):
    name = "BinaryLinearEquation_SolutionCounting"

    def levels(self, difficulty):
        return [{"MAX_RANGE": 8 * 2**difficulty}]

    def sample(self, params, rng):
        r = params["MAX_RANGE"]
        a, b = rng.randint(-r, r), rng.randint(-r, r)
        if rng.random() < 0.95:  # as the original: plant a point, then draw the box around it
            x, y = rng.randint(-r, r), rng.randint(-r, r)
            x_range = [rng.randint(-r, x), rng.randint(x, r)]
            y_range = [rng.randint(-r, y), rng.randint(y, r)]
            c = -(a * x + b * y)
        else:
            x1, y1 = rng.randint(-r, r), rng.randint(-r, r)
            x_range, y_range = [x1, rng.randint(x1, r)], [y1, rng.randint(y1, r)]
            c = rng.randint(-2 * r * r, 2 * r * r)
        count = count_solutions(a, b, c, x_range, y_range)
        return {"A": a, "B": b, "C": c, "X": x_range, "Y": y_range, "reference": str(count)}

    def prompt(self, data):
        (x1, x2), (y1, y2) = data["X"], data["Y"]
        b, c = data["B"], data["C"]
        equation = f"{data['A']}*x {'-' if b < 0 else '+'} {abs(b)}*y {'-' if c < 0 else '+'} {abs(c)} = 0"
        return (
            f"How many integer pairs (x, y) satisfy {equation}, "
            f"with {x1} <= x <= {x2} and {y1} <= y <= {y2}?\n\n"
            "Output Format: a single non-negative integer, the number of such pairs."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
