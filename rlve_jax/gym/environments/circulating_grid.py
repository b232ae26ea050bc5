"""CirculatingGrid: change the fewest arrows of a torus grid so that following arrows from any cell
eventually returns to it (every cell is entered by exactly one arrow)."""

from rlve_jax.gym.environments._common import minimization_reward, parse_char_grid, sparse_min_cost_assignment
from rlve_jax.gym.env import Environment

MOVES = {"L": (0, -1), "R": (0, 1), "U": (-1, 0), "D": (1, 0)}


def target(rows: int, columns: int, r: int, c: int, arrow: str) -> int:
    dr, dc = MOVES[arrow]
    return (r + dr) % rows * columns + (c + dc) % columns


def fewest_changes(grid: list[str]) -> list[str]:
    """Min-cost assignment of every cell to one of its four torus neighbours (keeping its arrow costs 0,
    any other costs 1) such that each cell is entered exactly once."""
    rows, columns = len(grid), len(grid[0])
    arcs, arrow_to = [], {}
    for r in range(rows):
        for c in range(columns):
            costs: dict[int, int] = {}
            for arrow in MOVES:  # on a side of length 2 two arrows reach the same cell
                t = target(rows, columns, r, c, arrow)
                cost = int(arrow != grid[r][c])
                if cost < costs.get(t, 2):
                    costs[t], arrow_to[r * columns + c, t] = cost, arrow
            arcs.append(sorted(costs.items()))
    assignment = sparse_min_cost_assignment(arcs)
    arrows = [arrow_to[cell, t] for cell, t in enumerate(assignment)]
    return ["".join(arrows[r * columns:(r + 1) * columns]) for r in range(rows)]


def changes(grid: list[str], answer: list[str]) -> int:
    return sum(a != b for row, new in zip(grid, answer) for a, b in zip(row, new))


class CirculatingGrid(Environment):
    name = "CirculatingGrid"

    def levels(self, difficulty):
        return [{"MAX_R_C": 3 + difficulty}]

    def sample(self, params, rng):
        rows, columns = rng.randint(2, params["MAX_R_C"]), rng.randint(2, params["MAX_R_C"])
        weights = [rng.randint(1, 10) for _ in MOVES]
        grid = ["".join(rng.choices(list(MOVES), weights, k=columns)) for _ in range(rows)]
        best = fewest_changes(grid)
        return {"grid": grid, "optimum": changes(grid, best), "reference": "\n".join(best)}

    def prompt(self, data):
        grid = data["grid"]
        rows, columns = len(grid), len(grid[0])
        return (
            f"You are given a grid with {rows} rows and {columns} columns; every cell holds an arrow: "
            "L (left), R (right), U (up) or D (down). The grid wraps around like a torus: moving left from "
            "column 0 leads to the last column, moving up from row 0 leads to the last row, and so on.\n"
            + "\n".join(grid)
            + "\nChange the arrows of as few cells as possible so that, starting from any cell and repeatedly "
            "moving in the direction of the current cell's arrow, you eventually come back to the starting "
            "cell (equivalently, every cell is pointed to by exactly one arrow).\n\n"
            f"Output Format: {rows} lines, each with {columns} letters from L, R, U, D (no separators): "
            "the grid after your changes."
        )

    def score(self, data, answer):
        grid = data["grid"]
        rows, columns = len(grid), len(grid[0])
        new = parse_char_grid(answer, rows, columns, "LRUD", ignore_spaces=True)
        entered = [0] * (rows * columns)
        for r in range(rows):
            for c in range(columns):
                entered[target(rows, columns, r, c, new[r][c])] += 1
        if any(count != 1 for count in entered):
            return -0.5
        return minimization_reward(data["optimum"], changes(grid, new), beta=5)
