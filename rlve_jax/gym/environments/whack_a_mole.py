"""WhackAMole: one fixed r x c hammer clears a full block per swing; fewest swings to clear the grid."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grid_text, grow_1p1


def clears(grid: list[list[int]], r: int, c: int) -> bool:
    """Row-major greedy: the first non-empty cell can only be hit as a block's top-left corner."""
    grid = [row[:] for row in grid]
    n, m = len(grid), len(grid[0])
    for i in range(n):
        for j in range(m):
            hits = grid[i][j]
            if not hits:
                continue
            if i + r > n or j + c > m:
                return False
            for a in range(i, i + r):
                for b in range(j, j + c):
                    grid[a][b] -= hits
                    if grid[a][b] < 0:
                        return False
    return True


def fewest_swings(grid: list[list[int]]) -> int:
    """Every swing removes r*c moles, so the largest hammer that clears the grid needs the fewest swings."""
    total = sum(map(sum, grid))
    n, m = len(grid), len(grid[0])
    return min(total // (r * c) for r in range(1, n + 1) for c in range(1, m + 1)
               if total % (r * c) == 0 and clears(grid, r, c))


class WhackAMole(ExactIntegerEnvironment):
    name = "WhackAMole"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        r, c = rng.randint(1, n), rng.randint(1, m)
        while True:
            grid = [[0] * m for _ in range(n)]
            for i in range(n - r + 1):
                for j in range(m - c + 1):
                    hits = rng.randint(0, 3)
                    for a in range(i, i + r):
                        for b in range(j, j + c):
                            grid[a][b] += hits
            if any(map(any, grid)):
                return {"grid": grid, "reference": str(fewest_swings(grid))}

    def prompt(self, data):
        n, m = len(data["grid"]), len(data["grid"][0])
        return (
            f"A {n} x {m} field has moles; the number in each cell is how many moles are in it:\n"
            f"{grid_text(data['grid'])}\n\n"
            "Before starting you choose a hammer size r x c (1 <= r <= "
            f"{n}, 1 <= c <= {m}) and keep it for the whole game (it cannot be rotated). A swing hits an r x c "
            "block of cells lying inside the field, every cell of which still has at least one mole, and removes "
            "exactly one mole from each of those cells. What is the minimum number of swings needed to remove "
            "all moles?\n\n"
            "Output Format: a single integer."
        )
