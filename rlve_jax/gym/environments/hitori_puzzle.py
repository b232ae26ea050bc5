"""HitoriPuzzle: shade cells so numbers are unique per line, shaded cells never touch and the rest stays connected."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text, parse_char_grid
from rlve_jax.gym.environments._puzzles import columns, grid_dims, neighbours4
from rlve_jax.gym.env import Environment


def whites_connected(shaded: list[list[bool]]) -> bool:
    rows, cols = len(shaded), len(shaded[0])
    whites = [(r, c) for r in range(rows) for c in range(cols) if not shaded[r][c]]
    if not whites:
        return True
    seen, stack = {whites[0]}, [whites[0]]
    while stack:
        r, c = stack.pop()
        for cell in neighbours4(r, c, rows, cols):
            if not shaded[cell[0]][cell[1]] and cell not in seen:
                seen.add(cell)
                stack.append(cell)
    return len(seen) == len(whites)


def shaded_cells_touch(shaded: list[list[bool]]) -> bool:
    rows, cols = len(shaded), len(shaded[0])
    return any(shaded[r][c] and any(shaded[a][b] for a, b in neighbours4(r, c, rows, cols))
               for r in range(rows) for c in range(cols))


class HitoriPuzzle(Environment):
    name = "HitoriPuzzle"

    def levels(self, difficulty):
        return [{"MAX_N_M": 4 + difficulty}]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        shaded = [[False] * cols for _ in range(rows)]
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        rng.shuffle(cells)
        for r, c in cells:  # plant a valid shading: add cells that keep it non-touching and connected
            if rng.random() < 0.5 and not any(shaded[a][b] for a, b in neighbours4(r, c, rows, cols)):
                shaded[r][c] = True
                if not whites_connected(shaded):
                    shaded[r][c] = False
        size = max(rows, cols)  # a Latin rectangle makes every line of white cells duplicate-free
        symbols = list(range(1, size + 1))
        rng.shuffle(symbols)
        row_shift, col_shift = rng.sample(range(size), rows), rng.sample(range(size), cols)
        grid = [[symbols[(row_shift[r] + col_shift[c]) % size] for c in range(cols)] for r in range(rows)]
        for r, c in sorted(cells):  # a shaded cell repeats a white number of its row or column, if it can
            seen = sorted({grid[r][b] for b in range(cols) if not shaded[r][b]}
                          | {grid[a][c] for a in range(rows) if not shaded[a][c]})
            if shaded[r][c] and seen:
                grid[r][c] = rng.choice(seen)
        return {"grid": grid, "reference": "\n".join("".join("*" if s else "." for s in row) for row in shaded)}

    def prompt(self, data):
        grid = data["grid"]
        rows, cols = len(grid), len(grid[0])
        return (
            f"You are given a {rows} x {cols} grid of numbers:\n"
            + grid_text(grid) + "\n\n"
            "Shade some cells so that:\n"
            "1. In every row and every column, the numbers in unshaded cells are all different.\n"
            "2. No two shaded cells are orthogonally adjacent.\n"
            "3. All unshaded cells form one orthogonally connected region.\n\n"
            f"Output Format: {rows} lines, each with {cols} characters and no separators: '*' for a shaded cell and "
            "'.' for an unshaded cell."
        )

    def score(self, data, answer):
        grid = data["grid"]
        rows, cols = len(grid), len(grid[0])
        marks = parse_char_grid(answer, rows, cols, ".*")
        shaded = [[ch == "*" for ch in line] for line in marks]
        if shaded_cells_touch(shaded) or not whites_connected(shaded):
            return INVALID
        lines = [[v for v, s in zip(row, srow) if not s] for row, srow in zip(grid, shaded)]
        lines += [[v for v, s in zip(col, scol) if not s] for col, scol in zip(columns(grid), columns(shaded))]
        return fraction_reward(sum(len(set(line)) == len(line) for line in lines), rows + cols, beta=10)
