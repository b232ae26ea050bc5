"""Minimum_DominatingSet_Grid: the cheapest set of grid cells such that every cell is chosen or has a
chosen orthogonal neighbour."""

import numpy as np

from rlve_jax.gym.environments._common import INVALID, drop_last_line, grid_text, minimization_reward, parse_pair_lines
from rlve_jax.gym.env import Environment

UNDOMINATED, DOMINATED, CHOSEN = 0, 1, 2  # frontier statuses: one base-3 digit per column
UNREACHABLE = 1 << 60
NO_KEY = np.iinfo(np.int64).max


def cheapest_dominating_set(cost: list[list[int]]) -> tuple[int, list[tuple[int, int]]]:
    """(minimum cost, chosen cells) by a broken-profile DP over the cells in row-major order.

    The profile holds, per column, the status of the latest processed cell of that column. When cell
    (r, c) is processed, the cell above it leaves the profile for good, so it must be dominated by then.
    The grid is transposed so that the profile is as narrow as possible; all 3^width profiles are
    updated at once with numpy, keeping a parent and a choice per profile for the reconstruction.
    """
    transposed = len(cost[0]) > len(cost)
    grid = [list(column) for column in zip(*cost)] if transposed else cost
    rows, width = len(grid), len(grid[0])
    states = np.arange(3 ** width)
    digit = [states // 3 ** c % 3 for c in range(width)]
    best = np.full(3 ** width, UNREACHABLE, dtype=np.int64)
    best[(3 ** width - 1) // 2] = 0  # all DOMINATED: a virtual row above the grid
    history = []
    for r in range(rows):
        for c in range(width):
            up, power = digit[c], 3 ** c
            left = digit[c - 1] if c else np.full_like(states, DOMINATED)
            chosen = states + (CHOSEN - up) * power
            if c:
                chosen = chosen + (left == UNDOMINATED) * (power // 3)
            skip_ok = up != UNDOMINATED
            skipped = (states + (((up == CHOSEN) | (left == CHOSEN)) - up) * power)[skip_ok]
            targets = np.concatenate([chosen, skipped])
            values = np.concatenate([best + grid[r][c], best[skip_ok]])
            sources = np.concatenate([states, states[skip_ok]])
            reachable = values < UNREACHABLE
            # scatter-min of value * size + rank: ties go to the lowest rank, the same on every machine
            size = len(targets)
            keys = np.full_like(best, NO_KEY)
            np.minimum.at(keys, targets[reachable], values[reachable] * size + np.flatnonzero(reachable))
            found = keys < NO_KEY
            winner = keys[found] % size
            best = np.full_like(best, UNREACHABLE)
            best[found] = keys[found] // size
            parent, choice = np.zeros_like(states), np.zeros(len(states), dtype=bool)
            parent[found], choice[found] = sources[winner], winner < len(states)
            history.append((parent, choice))
    complete = np.all([d != UNDOMINATED for d in digit], axis=0)
    state = int(np.argmin(np.where(complete, best, UNREACHABLE)))
    total, chosen_cells = int(best[state]), []
    for index in range(rows * width - 1, -1, -1):
        parent, choice = history[index]
        if choice[state]:
            r, c = divmod(index, width)
            chosen_cells.append((c, r) if transposed else (r, c))
        state = int(parent[state])
    return total, sorted(chosen_cells)


def undominated_cells(rows: int, columns: int, chosen: set[tuple[int, int]]) -> int:
    return sum(not any(cell in chosen for cell in ((i, j), (i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)))
               for i in range(rows) for j in range(columns))


class Minimum_DominatingSet_Grid(Environment):
    name = "Minimum_DominatingSet_Grid"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        rows, columns = rng.randint(2, top), rng.randint(2, top)
        cost = [[rng.randint(1, rows * columns) for _ in range(columns)] for _ in range(rows)]
        best, cells = cheapest_dominating_set(cost)
        return {"cost": cost, "optimum": best, "reference": "\n".join(f"{i + 1} {j + 1}" for i, j in cells)}

    def prompt(self, data):
        rows, columns = len(data["cost"]), len(data["cost"][0])
        return (
            f"You are given a grid with {rows} rows and {columns} columns; the cost of each cell is:\n"
            f"{grid_text(data['cost'])}\n\n"
            "Select a set of cells such that every cell is selected or shares a side with a selected cell. "
            "Minimize the total cost of the selected cells.\n\n"
            "Output Format: one selected cell per line, written as `i j` (its row and column, both 1-based), "
            "e.g.\n1 2\n3 1"
        )

    def score(self, data, answer):
        cells = parse_pair_lines(answer)
        rows, columns = len(data["cost"]), len(data["cost"][0])
        chosen = {(i - 1, j - 1) for i, j in cells}
        if len(chosen) != len(cells) or any(not (0 <= i < rows and 0 <= j < columns) for i, j in chosen):
            return INVALID
        if undominated_cells(rows, columns, chosen):
            return -0.2
        return minimization_reward(data["optimum"], sum(data["cost"][i][j] for i, j in chosen), beta=5)

    def perturb(self, problem, answer):
        return drop_last_line(answer)
