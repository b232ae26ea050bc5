"""GridParityConstruction: build a 0/1 grid whose cell-XOR-neighbours matrix equals a given one."""

from rlve_jax.gym.environments._common import fraction_reward, parse_char_grid
from rlve_jax.gym.environments._puzzles import binary_grid_format, grid_dims, neighbours4
from rlve_jax.gym.env import Environment


def parity_matrix(grid: list[str]) -> list[str]:
    rows, cols = len(grid), len(grid[0])
    return ["".join(str(int(grid[r][c]) ^ sum(int(grid[a][b]) for a, b in neighbours4(r, c, rows, cols)) % 2)
                    for c in range(cols)) for r in range(rows)]


class GridParityConstruction(Environment):
    name = "GridParityConstruction"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        grid = ["".join(rng.choice("01") for _ in range(cols)) for _ in range(rows)]
        return {"parity": parity_matrix(grid), "reference": "\n".join(grid)}

    def prompt(self, data):
        rows, cols = len(data["parity"]), len(data["parity"][0])
        return (
            f"Construct a {rows} x {cols} grid A of 0s and 1s. Its parity matrix P is defined by: P[i][j] is the "
            "XOR of A[i][j] and its orthogonal neighbours inside the grid (up, down, left, right). The parity matrix "
            "must be:\n" + "\n".join(data["parity"]) + "\n\n"
            + binary_grid_format(rows, cols, "the grid A")
        )

    def score(self, data, answer):
        target = data["parity"]
        grid = parse_char_grid(answer, len(target), len(target[0]), "01")
        same = sum(a == b for line, gold in zip(parity_matrix(grid), target) for a, b in zip(line, gold))
        return fraction_reward(same, len(target) * len(target[0]), beta=5)
