"""GridBFS: multi-source BFS distances to the nearest 1 on a grid of 0 / 1 / X cells."""

from collections import deque

from rlve_jax.gym.environments._common import grid_text, grow_1p1, parse_int_grid
from rlve_jax.gym.environments._puzzles import grid_match_reward
from rlve_jax.gym.env import Environment


def bfs_distances(grid: list[str]) -> list[list[int]]:
    """Distance of every cell to the nearest '1' through non-'X' cells; -1 if unreachable or an 'X'."""
    n, m = len(grid), len(grid[0])
    dist = [[-1] * m for _ in range(n)]
    queue = deque((i, j) for i in range(n) for j in range(m) if grid[i][j] == "1")
    for i, j in queue:
        dist[i][j] = 0
    while queue:
        i, j = queue.popleft()
        for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= a < n and 0 <= b < m and grid[a][b] != "X" and dist[a][b] < 0:
                dist[a][b] = dist[i][j] + 1
                queue.append((a, b))
    return dist


class GridBFS(Environment):
    name = "GridBFS"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        weights = [rng.randint(1, n * m) for _ in "01X"]
        grid = ["".join(rng.choices("01X", weights=weights, k=m)) for _ in range(n)]
        return {"grid": grid, "gold": bfs_distances(grid)}

    def prompt(self, data):
        n, m = len(data["grid"]), len(data["grid"][0])
        return (
            f"You are given a {n} x {m} grid; each cell is `0`, `1` or `X`:\n"
            + "\n".join(data["grid"])
            + "\n\nFor every cell, find the shortest distance to any cell containing `1`, moving one step at a "
            "time up, down, left or right and never entering an `X` cell (a `1` cell has distance 0). "
            "Use -1 for `X` cells and for cells that cannot reach any `1`.\n\n"
            f"Output Format: {n} lines, each with {m} integers separated by spaces (the distances of the cells "
            "in that row)."
        )

    def score(self, data, answer):
        gold = data["gold"]
        return grid_match_reward(parse_int_grid(answer, len(gold), len(gold[0])), gold, 10)

    def reference(self, problem):
        return grid_text(problem.data["gold"])
