"""GridComponent: the size of the largest 4-connected component of 1s in a 0/1 grid."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def largest_component(grid: list[str]) -> int:
    rows, cols = len(grid), len(grid[0])
    seen, best = set(), 0
    for start in ((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "1"):
        if start in seen:
            continue
        seen.add(start)
        stack, size = [start], 0
        while stack:
            r, c = stack.pop()
            size += 1
            for cell in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= cell[0] < rows and 0 <= cell[1] < cols and grid[cell[0]][cell[1]] == "1" and cell not in seen:
                    seen.add(cell)
                    stack.append(cell)
        best = max(best, size)
    return best


class GridComponent(ExactIntegerEnvironment):
    name = "GridComponent"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        rows, cols = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        density = rng.uniform(0.1, 0.9)
        grid = ["".join("1" if rng.random() < density else "0" for _ in range(cols)) for _ in range(rows)]
        return {"grid": grid, "reference": str(largest_component(grid))}

    def prompt(self, data):
        rows, cols = len(data["grid"]), len(data["grid"][0])
        return (
            f"You are given a {rows} x {cols} grid. Each cell contains either 0 or 1:\n"
            + "\n".join(data["grid"])
            + "\n\nTwo cells with value 1 are connected if they share a side (up, down, left or right). "
            "A connected component is a maximal set of 1-cells in which any two cells are linked by a chain "
            "of connected cells. What is the size (number of cells) of the largest connected component? "
            "If the grid has no 1, the answer is 0.\n\n"
            "Output Format: a single integer."
        )
