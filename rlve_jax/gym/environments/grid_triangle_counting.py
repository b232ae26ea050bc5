"""GridTriangleCounting (held-out): non-degenerate triangles with vertices on an (N+1) x (M+1) lattice."""

from math import comb, gcd

from rlve_jax.gym.environments._common import grow_1p5, perturb_count, score_count
from rlve_jax.gym.env import Environment


def count_triangles(n: int, m: int) -> int:
    """All triples minus collinear ones (rows, columns, and slanted lines counted by their end points)."""
    points = (n + 1) * (m + 1)
    collinear = (m + 1) * comb(n + 1, 3) + (n + 1) * comb(m + 1, 3)
    for dx in range(1, n + 1):
        for dy in range(1, m + 1):  # segments with this span, both slopes, with gcd-1 interior lattice points
            collinear += 2 * (n - dx + 1) * (m - dy + 1) * (gcd(dx, dy) - 1)
    return comb(points, 3) - collinear


class GridTriangleCounting(Environment):
    name = "GridTriangleCounting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(1, params["MAX_N_M"]), rng.randint(1, params["MAX_N_M"])
        return {"N": n, "M": m, "reference": str(count_triangles(n, m))}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"Consider all lattice points (x, y) with integers 0 <= x <= {n} and 0 <= y <= {m}. How many triangles "
            "with positive area have all three vertices at these points? (Two triangles are different if their "
            "vertex sets differ.)\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
