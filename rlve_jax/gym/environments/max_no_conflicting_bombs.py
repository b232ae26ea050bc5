"""MaxNoConflictingBombs (the classic "bomb placement"): put as many bombs as possible on empty cells
so that no two bombs see each other along a row or column without a hard wall between them."""

from rlve_jax.gym.environments._common import grow_1p1, max_bipartite_matching, maximization_reward, parse_char_grid
from rlve_jax.gym.env import Environment

CELL_TYPES = "*x#"  # empty (a bomb may go here), soft stone (blocks nothing), hard wall (blocks)


def segment_ids(grid: list[str]) -> tuple[list[list[int]], list[list[int]]]:
    """For every cell, the id of its maximal wall-free run in its row and in its column."""
    rows, columns = len(grid), len(grid[0])
    row_id = [[0] * columns for _ in range(rows)]
    column_id = [[0] * columns for _ in range(rows)]
    count = 0
    for r in range(rows):
        for c in range(columns):
            if c == 0 or grid[r][c - 1] == "#":
                count += 1
            row_id[r][c] = count - 1
    count = 0
    for c in range(columns):
        for r in range(rows):
            if r == 0 or grid[r - 1][c] == "#":
                count += 1
            column_id[r][c] = count - 1
    return row_id, column_id


def most_bombs(grid: list[str]) -> list[str]:
    """Exact: a bomb uses up its row run and its column run, so bombs form a matching between row runs and
    column runs along empty cells; take a maximum bipartite matching."""
    rows, columns = len(grid), len(grid[0])
    row_id, column_id = segment_ids(grid)
    left, right = 1 + max(map(max, row_id)), 1 + max(map(max, column_id))
    adjacent: list[list[int]] = [[] for _ in range(left)]
    cell_of = {}
    for r in range(rows):
        for c in range(columns):
            if grid[r][c] == "*":
                adjacent[row_id[r][c]].append(column_id[r][c])
                cell_of[row_id[r][c], column_id[r][c]] = (r, c)
    match_of_right = max_bipartite_matching(left, right, adjacent)
    result = [list(row) for row in grid]
    for v, u in enumerate(match_of_right):
        if u >= 0:
            r, c = cell_of[u, v]
            result[r][c] = "B"
    return ["".join(row) for row in result]


class MaxNoConflictingBombs(Environment):
    name = "MaxNoConflictingBombs"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        rows, columns = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        weights = [rng.randint(1, 10) for _ in CELL_TYPES]
        grid = ["".join(rng.choices(CELL_TYPES, weights, k=columns)) for _ in range(rows)]
        placed = most_bombs(grid)
        return {"grid": grid, "optimum": sum(row.count("B") for row in placed), "reference": "\n".join(placed)}

    def prompt(self, data):
        grid = data["grid"]
        rows, columns = len(grid), len(grid[0])
        return (
            f"You are given a grid with {rows} rows and {columns} columns. Each cell is one of: `*` (empty), "
            "`x` (soft stone) or `#` (hard wall):\n"
            + "\n".join(grid)
            + "\nPlace as many bombs as possible, each on an empty `*` cell. A bomb's blast travels along its row "
            "and its column and is stopped only by hard walls `#` (soft stones do not stop it). No two bombs may "
            "be in the same row or the same column unless a `#` lies between them.\n\n"
            f"Output Format: {rows} lines of {columns} characters each: the grid with every cell where you place a "
            "bomb changed from `*` to `B`, and all other cells unchanged."
        )

    def score(self, data, answer):
        grid = data["grid"]
        rows, columns = len(grid), len(grid[0])
        result = parse_char_grid(answer, rows, columns, "*x#B", ignore_spaces=True)
        cells = [(new, old) for line, row in zip(result, grid) for new, old in zip(line, row)]
        if any(new != old and (new, old) != ("B", "*") for new, old in cells):  # only * may become B
            return -0.5
        row_id, column_id = segment_ids(grid)
        bombs = [(r, c) for r in range(rows) for c in range(columns) if result[r][c] == "B"]
        if len({row_id[r][c] for r, c in bombs}) < len(bombs) or len({column_id[r][c] for r, c in bombs}) < len(bombs):
            return -0.5
        return maximization_reward(len(bombs), data["optimum"], beta=3)

    def perturb(self, problem, answer):
        """One bomb fewer (or, with no bomb to place, a changed cell)."""
        if "B" in answer:
            return answer.replace("B", "*", 1)
        return super().perturb(problem, answer)
