"""GridColoringCounting: place pieces of C colours on an N x M grid, colours never sharing a line.

g[a][b] counts the ways to place X pieces of one colour using exactly a given rows and b
given columns (inclusion-exclusion over unused lines); colours are then added one at a
time, each taking fresh rows and columns: f[i][j] = sum f[i-a][j-b] C(N-i+a, a) C(M-j+b, b) g[a][b].
"""

from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


def exact_cover_ways(rows: int, cols: int, pieces: int) -> list[list[int]]:
    """g[a][b]: placements of `pieces` in an a x b block that touch every row and every column."""
    g = [[0] * (cols + 1) for _ in range(rows + 1)]
    for a in range(rows + 1):
        for b in range(cols + 1):
            g[a][b] = comb(a * b, pieces) - sum(
                comb(a, a2) * comb(b, b2) * g[a2][b2]
                for a2 in range(a + 1) for b2 in range(b + 1) if (a2, b2) != (a, b))
    return g


def count_colorings(rows: int, cols: int, pieces: list[int]) -> int:
    ways = [[0] * (cols + 1) for _ in range(rows + 1)]
    ways[0][0] = 1
    for count in pieces:
        g = exact_cover_ways(rows, cols, count)
        step = [[0] * (cols + 1) for _ in range(rows + 1)]
        for i in range(rows + 1):
            for j in range(cols + 1):
                if ways[i][j]:
                    for a in range(1, rows - i + 1):
                        for b in range(1, cols - j + 1):
                            if g[a][b]:
                                step[i + a][j + b] += ways[i][j] * comb(rows - i, a) * comb(cols - j, b) * g[a][b]
        ways = step
    return sum(map(sum, ways))


class GridColoringCounting(ModCountingEnvironment):
    name = "GridColoringCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        colors = rng.randint(1, min(n, m))
        # Plant a solution: each colour gets its own non-empty sets of rows and columns.
        row_owner = rng.sample(range(colors), colors) + [rng.randrange(colors + 1) for _ in range(n - colors)]
        col_owner = rng.sample(range(colors), colors) + [rng.randrange(colors + 1) for _ in range(m - colors)]
        pieces = [rng.randint(1, row_owner.count(c) * col_owner.count(c)) for c in range(colors)]
        mod = rng.randint(2, 10_000)
        return {"N": n, "M": m, "X": pieces, "MOD": mod, "gold": count_colorings(n, m, pieces) % mod}

    def prompt(self, data):
        n, m, pieces = data["N"], data["M"], data["X"]
        return (
            f"You have an empty {n} x {m} grid and pieces of {len(pieces)} colours: exactly X[i] pieces of "
            f"colour i must be placed, where X = {' '.join(map(str, pieces))}. Each cell holds at most one "
            "piece, pieces of the same colour are identical, and two pieces of different colours may not be "
            "in the same row or in the same column. In how many ways can all the pieces be placed?\n\n"
            + mod_output_format(data["MOD"])
        )
