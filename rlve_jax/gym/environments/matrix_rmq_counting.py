"""MatrixRMQCounting: count H x W matrices over [1, M] whose given submatrices have given maxima."""

from rlve_jax.gym.environments._common import ModCountingEnvironment
from rlve_jax.gym.environments._numbers import count_under_exact_maxima


def count_matrices(h: int, w: int, m: int, constraints: list[list[int]]) -> int:
    """Exact count; rectangles [x1, y1, x2, y2, v] (1-based, inclusive) compress the grid to O(N^2) cells."""
    row_cuts = sorted({1, h + 1} | {c[0] for c in constraints} | {c[2] + 1 for c in constraints})
    column_cuts = sorted({1, w + 1} | {c[1] for c in constraints} | {c[3] + 1 for c in constraints})
    row_bands = list(zip(row_cuts, row_cuts[1:]))
    column_bands = list(zip(column_cuts, column_cuts[1:]))
    cell_sizes = [(r1 - r0) * (c1 - c0) for r0, r1 in row_bands for c0, c1 in column_bands]
    regions = []
    for x1, y1, x2, y2, value in constraints:
        cells = [i * len(column_bands) + j
                 for i, (r0, _) in enumerate(row_bands) if x1 <= r0 <= x2
                 for j, (c0, _) in enumerate(column_bands) if y1 <= c0 <= y2]
        regions.append((cells, value))
    return count_under_exact_maxima(cell_sizes, regions, m)


class MatrixRMQCounting(ModCountingEnvironment):
    name = "MatrixRMQCounting"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        h, w, m = rng.randint(1, 2 * n), rng.randint(1, 2 * n), rng.randint(1, (2 * n) ** 2)
        planted = [[rng.randint(1, m) for _ in range(w)] for _ in range(h)]
        constraints = []
        for _ in range(n):
            x1, x2 = sorted((rng.randint(1, h), rng.randint(1, h)))
            y1, y2 = sorted((rng.randint(1, w), rng.randint(1, w)))
            value = max(planted[x][y] for x in range(x1 - 1, x2) for y in range(y1 - 1, y2))
            constraints.append([x1, y1, x2, y2, value])
        mod = rng.randint(2, 10 ** 6)
        return {"H": h, "W": w, "M": m, "constraints": constraints, "mod": mod,
                "gold": count_matrices(h, w, m, constraints) % mod}

    def prompt(self, data):
        lines = "\n".join(f"- the maximum of the submatrix with rows {x1}..{x2} and columns {y1}..{y2} is {v}"
                          for x1, y1, x2, y2, v in data["constraints"])
        return (
            f"Count the {data['H']} x {data['W']} matrices (rows numbered 1..{data['H']}, columns 1..{data['W']}) "
            f"whose entries are integers in [1, {data['M']}] and that satisfy all of the following "
            f"(ranges are inclusive):\n{lines}\n\n"
            f"Output Format: a single integer, the number of such matrices modulo {data['mod']}."
        )
