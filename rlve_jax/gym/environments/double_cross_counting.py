"""DoubleCrossCounting: 'double cross' shapes made of 1s in a 0/1 matrix (HNOI 2013 rules)."""

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format, grow_1p1


def bar_pairs(top_arm: int, bottom_arm: int) -> int:
    """Half-widths 1 <= a < b with a <= top_arm and b <= bottom_arm."""
    return sum(min(b - 1, top_arm) for b in range(1, bottom_arm + 1))


def count_double_crosses(grid: list[str]) -> int:
    rows, cols = len(grid), len(grid[0])

    def run(r: int, c: int, dr: int, dc: int) -> int:  # consecutive 1s strictly beyond (r, c)
        length = 0
        r, c = r + dr, c + dc
        while 0 <= r < rows and 0 <= c < cols and grid[r][c] == "1":
            length, r, c = length + 1, r + dr, c + dc
        return length

    total = 0
    for c in range(cols):
        for top in range(rows):
            if grid[top][c] != "1":
                continue
            arm_top, above = min(run(top, c, 0, -1), run(top, c, 0, 1)), run(top, c, -1, 0)
            if not arm_top or not above:
                continue
            for bottom in range(top + 2, top + 2 + run(top, c, 1, 0) - 1):  # stays inside the vertical run
                arm_bottom, below = min(run(bottom, c, 0, -1), run(bottom, c, 0, 1)), run(bottom, c, 1, 0)
                total += above * below * bar_pairs(arm_top, arm_bottom)
    return total


class DoubleCrossCounting(CountingEnvironment):
    name = "DoubleCrossCounting"
    beta = 3

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(5, params["MAX_N_M"]), rng.randint(5, params["MAX_N_M"])
        cells = [["1"] * m for _ in range(n)]
        for cell in rng.sample(range(n * m), rng.randint(0, n * m // 4)):  # up to 25% zero cells
            cells[cell // m][cell % m] = "0"
        grid = ["".join(row) for row in cells]
        return {"N": n, "M": m, "grid": grid, "gold": count_double_crosses(grid)}

    def prompt(self, data):
        return (
            f"You are given a {data['N']} x {data['M']} matrix of 0s and 1s:\n" + "\n".join(data["grid"]) + "\n\n"
            "A double cross consists of two horizontal segments and one vertical segment, all made of cells "
            "containing 1:\n"
            "- each horizontal segment lies in a single row and has odd length at least 3; the vertical "
            "segment passes through the middle cell of both, splitting each into two equal halves;\n"
            "- the two horizontal segments are not in adjacent rows (at least one row lies between them);\n"
            "- the vertical segment is a contiguous run of 1s in one column that extends strictly above the "
            "upper horizontal segment and strictly below the lower one;\n"
            "- the upper horizontal segment is strictly shorter than the lower one.\n"
            "Two double crosses are different if they differ in any of their three segments. How many double "
            "crosses does the matrix contain?\n\n" + count_output_format()
        )
