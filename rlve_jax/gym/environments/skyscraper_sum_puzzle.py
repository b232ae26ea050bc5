"""SkyscraperSumPuzzle: a Latin square of heights whose visible-height sums match clues on all four sides."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text, parse_int_grid
from rlve_jax.gym.environments._puzzles import columns, int_grid_format
from rlve_jax.gym.env import Environment


def visible_sum(line: list[int]) -> int:
    total, tallest = 0, 0
    for height in line:
        if height > tallest:
            total, tallest = total + height, height
    return total


def all_clues(grid: list[list[int]]) -> list[list[int]]:
    """[top, bottom, left, right]: per column looking down/up, per row looking right/left."""
    cols = columns(grid)
    return [[visible_sum(c) for c in cols], [visible_sum(c[::-1]) for c in cols],
            [visible_sum(r) for r in grid], [visible_sum(r[::-1]) for r in grid]]


class SkyscraperSumPuzzle(Environment):
    name = "SkyscraperSumPuzzle"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        rows, cols, symbols = (rng.sample(range(n), n) for _ in range(3))
        grid = [[symbols[(rows[i] + cols[j]) % n] + 1 for j in range(n)] for i in range(n)]
        return {"N": n, "clues": all_clues(grid), "reference": grid_text(grid)}

    def prompt(self, data):
        n = data["N"]
        top, bottom, left, right = (" ".join(map(str, clue)) for clue in data["clues"])
        return (
            f"Fill a grid of size {n} x {n} with building heights 1 to {n} so that every row and every column contains "
            "each height exactly once. Looking along a row or column from outside the grid, a building is visible if "
            "it is taller than every building in front of it. Each clue is the sum of the heights of the visible "
            "buildings:\n"
            f"- from the top, for columns 0..{n - 1} (looking down): {top}\n"
            f"- from the bottom, for columns 0..{n - 1} (looking up): {bottom}\n"
            f"- from the left, for rows 0..{n - 1} (looking right): {left}\n"
            f"- from the right, for rows 0..{n - 1} (looking left): {right}\n\n"
            + int_grid_format(n, n, "the heights row by row")
        )

    def score(self, data, answer):
        n = data["N"]
        grid = parse_int_grid(answer, n, n)
        if any(sorted(line) != list(range(1, n + 1)) for line in grid + columns(grid)):
            return INVALID
        good = sum(a == b for mine, gold in zip(all_clues(grid), data["clues"]) for a, b in zip(mine, gold))
        return fraction_reward(good, 4 * n, beta=10)
