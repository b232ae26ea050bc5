"""TwiddlePuzzle: reach a target grid by rotating K x K subgrids 90 degrees counter-clockwise."""

from rlve_jax.gym.environments._common import INVALID, grid_text, parse_pair_lines
from rlve_jax.gym.environments._puzzles import ScrambledGridPuzzle, grid_match_reward


def rotate(grid: list[list[int]], corner: list[int], k: int) -> None:
    """Rotate the k x k subgrid with top-left `corner` a quarter turn counter-clockwise, in place."""
    i, j = corner
    block = [row[j:j + k] for row in grid[i:i + k]]
    for r in range(k):
        for c in range(k):
            grid[i + r][j + c] = block[c][k - 1 - r]


class TwiddlePuzzle(ScrambledGridPuzzle):
    name = "TwiddlePuzzle"
    step_choices = tuple(range(2, 11))

    def rules(self, rng, n, m):
        return {"K": rng.randint(2, min(n, m))}

    def random_move(self, rng, grid, rules):
        return [rng.randint(0, len(grid) - rules["K"]), rng.randint(0, len(grid[0]) - rules["K"])]

    def apply_move(self, grid, move, rules):
        rotate(grid, move, rules["K"])

    def moves_text(self, moves):
        return "\n".join(f"{i} {j}" for i, j in moves)

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
        for i, j in parse_pair_lines(answer):
            if not (0 <= i <= len(grid) - k and 0 <= j <= len(grid[0]) - k):
                return INVALID
            rotate(grid, [i, j], k)
        return grid_match_reward(grid, data["target"], 5)
