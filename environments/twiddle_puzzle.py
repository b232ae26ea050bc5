"""TwiddlePuzzle: reach a target grid by rotating K x K subgrids 90 degrees counter-clockwise."""

from rlve_jax.env import Environment

from ._classical_util import INVALID, grid_match_reward, grid_text, parse_pairs, random_grid, scramble

STEP_CHOICES = tuple(range(2, 11))


def rotate(grid: list[list[int]], corner: list[int], k: int) -> None:
    """Rotate the k x k subgrid with top-left `corner` a quarter turn counter-clockwise, in place."""
    i, j = corner
    block = [row[j:j + k] for row in grid[i:i + k]]
    for r in range(k):
        for c in range(k):
            grid[i + r][j + c] = block[c][k - 1 - r]


class TwiddlePuzzle(Environment):
    name = "TwiddlePuzzle"
    size_keys = ("MAX_N_M",)

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty, "steps": steps} for steps in STEP_CHOICES]

    def sample(self, params, rng):
        while True:
            n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
            k = rng.randint(2, min(n, m))
            start = random_grid(rng, n, m)
            scrambled = scramble(
                rng, start, params["steps"],
                lambda rng, grid: [rng.randint(0, n - k), rng.randint(0, m - k)],
                lambda grid, corner: rotate(grid, corner, k))
            if scrambled:
                target, corners = scrambled
                return {"start": start, "target": target, "K": k,
                        "reference": "\n".join(f"{i} {j}" for i, j in corners)}

    def prompt(self, data):
        n, m, k = len(data["start"]), len(data["start"][0]), data["K"]
        return (
            f"You are given a {n} x {m} grid (rows and columns indexed from 0):\n{grid_text(data['start'])}\n\n"
            f"An operation `i j` rotates the {k} x {k} subgrid whose top-left cell is (i, j) by 90 degrees "
            f"counter-clockwise (0 <= i <= {n - k}, 0 <= j <= {m - k}). For example, a 2 x 2 subgrid\n1 2\n3 4\n"
            "becomes\n2 4\n1 3\n"
            f"Apply operations to turn the grid into this target grid:\n{grid_text(data['target'])}\n\n"
            "Output Format: one operation per line, in order, each written as `i j`."
        )

    def score(self, data, answer):
        grid, k = [row[:] for row in data["start"]], data["K"]
        for i, j in parse_pairs(answer):
            if not (0 <= i <= len(grid) - k and 0 <= j <= len(grid[0]) - k):
                return INVALID
            rotate(grid, [i, j], k)
        return grid_match_reward(grid, data["target"], 5)
