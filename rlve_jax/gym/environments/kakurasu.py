"""Kakurasu: a 0/1 grid whose rows sum the (1-based) column indices of their 1s, and columns the row indices."""

from rlve_jax.gym.environments._common import parse_char_grid
from rlve_jax.gym.environments._puzzles import binary_grid_format, columns, grid_dims, line_match_reward
from rlve_jax.gym.env import Environment


def weighted_sums(lines) -> list[int]:
    return [sum(k for k, ch in enumerate(line, 1) if ch == "1") for line in lines]


class Kakurasu(Environment):
    name = "Kakurasu"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        rows, cols = grid_dims(rng, params["MAX_N_M"])
        grid = ["".join(rng.choice("01") for _ in range(cols)) for _ in range(rows)]
        return {"row_sums": weighted_sums(grid), "col_sums": weighted_sums(columns(grid)),
                "reference": "\n".join(grid)}

    def prompt(self, data):
        rows, cols = len(data["row_sums"]), len(data["col_sums"])
        return (
            f"Fill a {rows} x {cols} grid with 0s and 1s. Rows are numbered 1 to {rows} from top to bottom and "
            f"columns 1 to {cols} from left to right.\n"
            f"- For each row i, the sum of the column numbers of its 1s must be R[i], where R = "
            f"{' '.join(map(str, data['row_sums']))}\n"
            f"- For each column j, the sum of the row numbers of its 1s must be C[j], where C = "
            f"{' '.join(map(str, data['col_sums']))}\n\n"
            + binary_grid_format(rows, cols, "the grid")
        )

    def score(self, data, answer):
        grid = parse_char_grid(answer, len(data["row_sums"]), len(data["col_sums"]), "01")
        return line_match_reward(weighted_sums(grid), data["row_sums"],
                                 weighted_sums(columns(grid)), data["col_sums"], beta=10)
