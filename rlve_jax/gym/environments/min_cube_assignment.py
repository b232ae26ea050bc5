"""MinCubeAssignment: give every cell of a P x Q grid a level in [0, R) at minimum total cost while
adjacent levels differ by at most D (the "cake cutting" min-cut problem)."""

from rlve_jax.gym.environments._common import (
    INVALID, FlowNetwork, drop_last_tokens, grid_text, minimization_reward, parse_int_rows,
)
from rlve_jax.gym.env import Environment

NEIGHBOUR_STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def neighbours(i: int, j: int, rows: int, columns: int):
    for di, dj in NEIGHBOUR_STEPS:
        if 0 <= i + di < rows and 0 <= j + dj < columns:
            yield i + di, j + dj


def assignment_cost(cost: list[list[list[int]]], levels: list[list[int]]) -> int:
    return sum(cost[i][j][f] for i, row in enumerate(levels) for j, f in enumerate(row))


def is_feasible(levels: list[list[int]], rows: int, columns: int, levels_count: int, max_gap: int) -> bool:
    """Levels in range and adjacent cells within max_gap (the shape must already be rows x columns)."""
    return (all(0 <= f < levels_count for row in levels for f in row)
            and all(abs(levels[i][j] - levels[a][b]) <= max_gap
                    for i in range(rows) for j in range(columns) for a, b in neighbours(i, j, rows, columns)))


def cheapest_levels(cost: list[list[list[int]]], max_gap: int) -> tuple[int, list[list[int]]]:
    """Minimum cut: each cell is a chain of R+1 nodes whose arc v -> v+1 costs cost[v]; cutting it
    picks level v. Infinite back arcs make every chain cut once, and infinite arcs
    (cell, v) -> (neighbour, v - D) forbid a level more than D above a neighbour's."""
    rows, columns, levels_count = len(cost), len(cost[0]), len(cost[0][0])

    def node(i: int, j: int, v: int) -> int:
        return (i * columns + j) * (levels_count + 1) + v

    source = rows * columns * (levels_count + 1)
    sink = source + 1
    infinite = sum(c for row in cost for cell in row for c in cell) + 1
    network = FlowNetwork(sink + 1)
    for i in range(rows):
        for j in range(columns):
            network.add_arc(source, node(i, j, 0), infinite)
            network.add_arc(node(i, j, levels_count), sink, infinite)
            for v in range(levels_count):
                network.add_arc(node(i, j, v), node(i, j, v + 1), cost[i][j][v])
                network.add_arc(node(i, j, v + 1), node(i, j, v), infinite)
            for a, b in neighbours(i, j, rows, columns):
                for v in range(max_gap, levels_count + 1):
                    network.add_arc(node(i, j, v), node(a, b, v - max_gap), infinite)
    value = network.max_flow(source, sink)
    source_side = network.source_side(source)
    levels = [[sum(source_side[node(i, j, v)] for v in range(levels_count)) - 1 for j in range(columns)]
              for i in range(rows)]
    return value, levels


class MinCubeAssignment(Environment):
    name = "MinCubeAssignment"

    def levels(self, difficulty):
        return [{"MAX_P_Q_R": 2 + difficulty}]

    def sample(self, params, rng):
        top = params["MAX_P_Q_R"]
        rows, columns, levels_count = rng.randint(2, top), rng.randint(2, top), rng.randint(2, top)
        cost = [[[rng.randint(1, rows * columns) for _ in range(levels_count)] for _ in range(columns)]
                for _ in range(rows)]
        max_gap = rng.randint(0, levels_count - 1)
        best, levels = cheapest_levels(cost, max_gap)
        return {"P": rows, "Q": columns, "R": levels_count, "D": max_gap, "cost": cost, "optimum": best,
                "reference": grid_text(levels)}

    def prompt(self, data):
        rows, columns, levels_count = data["P"], data["Q"], data["R"]
        costs = "\n".join(f"cell ({i}, {j}): " + " ".join(map(str, data["cost"][i][j]))
                          for i in range(rows) for j in range(columns))
        return (
            f"You are given a grid with {rows} rows and {columns} columns (cells (i, j) with 0 <= i < {rows}, "
            f"0 <= j < {columns}). Assign every cell (i, j) an integer f(i, j) in [0, {levels_count}). Choosing "
            f"f(i, j) = v costs cost[i][j][v]; the costs of each cell for v = 0, 1, ..., {levels_count - 1} are:\n"
            f"{costs}\n\n"
            f"For every two cells that share a side, |f(i, j) - f(i', j')| must be at most {data['D']}. "
            "Minimize the total cost of all cells.\n\n"
            f"Output Format: {rows} lines, each with {columns} integers separated by spaces: line i gives "
            f"f(i, 0), ..., f(i, {columns - 1})."
        )

    def score(self, data, answer):
        levels = parse_int_rows(answer)
        rows, columns = data["P"], data["Q"]
        if len(levels) != rows or any(len(row) != columns for row in levels):
            return INVALID
        if not is_feasible(levels, rows, columns, data["R"], data["D"]):
            return INVALID
        return minimization_reward(data["optimum"], assignment_cost(data["cost"], levels), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
