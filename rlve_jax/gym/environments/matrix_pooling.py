"""MatrixPooling: max-pooling of an N x M matrix with a K x K window and stride 1."""

from rlve_jax.gym.environments._common import grid_text, grow_1p1, parse_int_grid
from rlve_jax.gym.environments._puzzles import grid_match_reward
from rlve_jax.gym.env import Environment


def max_pool(matrix: list[list[int]], k: int) -> list[list[int]]:
    n, m = len(matrix), len(matrix[0])
    return [[max(matrix[a][b] for a in range(i, i + k) for b in range(j, j + k)) for j in range(m - k + 1)]
            for i in range(n - k + 1)]


class MatrixPooling(Environment):
    name = "MatrixPooling"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(3, params["MAX_N_M"]), rng.randint(3, params["MAX_N_M"])
        k = rng.randint(2, min(n, m) - 1)
        matrix = [[rng.randint(0, n * m) for _ in range(m)] for _ in range(n)]
        return {"matrix": matrix, "K": k, "gold": max_pool(matrix, k)}

    def prompt(self, data):
        n, m, k = len(data["matrix"]), len(data["matrix"][0]), data["K"]
        return (
            f"You are given a {n} x {m} matrix:\n{grid_text(data['matrix'])}\n\n"
            f"Apply max pooling with a {k} x {k} window and stride 1: for every top-left position (i, j) with "
            f"0 <= i <= {n - k} and 0 <= j <= {m - k}, output the maximum of the {k} x {k} submatrix starting "
            "there.\n\n"
            f"Output Format: {n - k + 1} lines, each with {m - k + 1} integers separated by spaces."
        )

    def score(self, data, answer):
        gold = data["gold"]
        return grid_match_reward(parse_int_grid(answer, len(gold), len(gold[0])), gold, 5)

    def reference(self, problem):
        return grid_text(problem.data["gold"])
