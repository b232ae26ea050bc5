"""MaxThreeSquareSum: the largest total of three non-overlapping K x K squares in a grid."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grid_text, grow_1p1


def best_three_squares(grid: list[list[int]], k: int) -> int:
    """Branch and bound over square positions sorted by their sums (largest first)."""
    n, m = len(grid), len(grid[0])
    squares = sorted(
        ((sum(grid[a][b] for a in range(i, i + k) for b in range(j, j + k)), i, j)
         for i in range(n - k + 1) for j in range(m - k + 1)),
        reverse=True)
    sums = [s for s, _, _ in squares]

    def apart(x: int, y: int) -> bool:
        return abs(squares[x][1] - squares[y][1]) >= k or abs(squares[x][2] - squares[y][2]) >= k

    count, best = len(squares), -1
    for a in range(count - 2):
        if sums[a] + sums[a + 1] + sums[a + 2] <= best:
            break
        for b in range(a + 1, count - 1):
            if sums[a] + sums[b] + sums[b + 1] <= best:
                break
            if not apart(a, b):
                continue
            for c in range(b + 1, count):
                if sums[a] + sums[b] + sums[c] <= best:
                    break
                if apart(a, c) and apart(b, c):
                    best = sums[a] + sums[b] + sums[c]
                    break
    return best


class MaxThreeSquareSum(ExactIntegerEnvironment):
    name = "MaxThreeSquareSum"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        n, m = rng.randint(4, top), rng.randint(4, top)
        k = rng.randint(2, min(n, m) // 2)
        grid = [[rng.randint(0, top) for _ in range(m)] for _ in range(n)]
        return {"grid": grid, "K": k, "reference": str(best_three_squares(grid, k))}

    def prompt(self, data):
        n, m, k = len(data["grid"]), len(data["grid"][0]), data["K"]
        return (
            f"You are given a {n} x {m} grid of integers:\n{grid_text(data['grid'])}\n\n"
            f"Choose three {k} x {k} squares inside the grid that do not overlap (no cell belongs to two of them). "
            "What is the maximum possible sum of all the numbers covered by the three squares?\n\n"
            "Output Format: a single integer."
        )
