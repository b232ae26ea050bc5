"""SkyscraperPuzzle (held-out): a Latin square of heights matching the visibility counts on all four sides."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text, parse_int_grid
from rlve_jax.gym.environments._puzzles import is_latin_square, random_latin_square
from rlve_jax.gym.env import Environment


def visible(line: list[int]) -> int:
    """Buildings seen from the front of the line: each one taller than everything before it."""
    count, tallest = 0, -1
    for h in line:
        if h > tallest:
            count, tallest = count + 1, h
    return count


def clues(grid: list[list[int]]) -> dict[str, list[int]]:
    columns = [list(c) for c in zip(*grid)]
    return {"top": [visible(c) for c in columns], "bottom": [visible(c[::-1]) for c in columns],
            "left": [visible(r) for r in grid], "right": [visible(r[::-1]) for r in grid]}


class SkyscraperPuzzle(Environment):
    name = "SkyscraperPuzzle"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        grid = random_latin_square(params["N"], rng)
        return {"N": params["N"], "clues": clues(grid), "reference": grid_text(grid)}

    def prompt(self, data):
        n, c = data["N"], data["clues"]
        return (
            f"Fill an {n} x {n} grid with building heights 0 to {n - 1} so that every row and every column "
            f"contains each height exactly once. A building is visible from one side of its row or column if it "
            "is taller than every building in front of it when looking from that side. The numbers of visible "
            "buildings must match these clues:\n"
            f"Top (looking down each column, columns 0..{n - 1}): {' '.join(map(str, c['top']))}\n"
            f"Bottom (looking up each column, columns 0..{n - 1}): {' '.join(map(str, c['bottom']))}\n"
            f"Left (looking right along each row, rows 0..{n - 1}): {' '.join(map(str, c['left']))}\n"
            f"Right (looking left along each row, rows 0..{n - 1}): {' '.join(map(str, c['right']))}\n\n"
            f"Output Format: {n} lines, each with {n} integers separated by spaces: the grid, row by row."
        )

    def score(self, data, answer):
        n = data["N"]
        grid = parse_int_grid(answer, n, n)
        if not is_latin_square(grid, n):
            return INVALID
        mine, gold = clues(grid), data["clues"]
        matching = sum(a == b for side in gold for a, b in zip(mine[side], gold[side]))
        return fraction_reward(matching, 4 * n, beta=10)
