"""MatrixPermutation_BothDiagonalOne (held-out): permute rows and columns so both diagonals are all ones."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text, parse_two_permutations
from rlve_jax.gym.env import Environment


def diagonal_cells(n: int) -> list[tuple[int, int]]:
    return sorted({(i, i) for i in range(n)} | {(i, n - 1 - i) for i in range(n)})


class MatrixPermutation_BothDiagonalOne(Environment):
    name = "MatrixPermutation_BothDiagonalOne"

    def levels(self, difficulty):
        return [{"N": 3 + 2 * difficulty}, {"N": 4 + 2 * difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        density = rng.random() * 0.25
        planted = [[int(rng.random() < density) for _ in range(n)] for _ in range(n)]
        for i, j in diagonal_cells(n):
            planted[i][j] = 1
        rows, cols = list(range(n)), list(range(n))
        rng.shuffle(rows)
        rng.shuffle(cols)
        # The shown matrix puts planted row i at position rows[i]; undoing that restores the diagonals.
        matrix = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                matrix[rows[i]][cols[j]] = planted[i][j]
        return {"matrix": matrix, "reference": " ".join(map(str, rows)) + "\n" + " ".join(map(str, cols))}

    def prompt(self, data):
        n = len(data["matrix"])
        return (
            f"You are given a {n} x {n} matrix M of 0s and 1s (rows and columns indexed from 0):\n"
            f"{grid_text(data['matrix'])}\n\n"
            "Find a row permutation r and a column permutation c of 0.."
            f"{n - 1} such that the matrix B with B[i][j] = M[r[i]][c[j]] has a 1 in every cell of its main diagonal "
            f"(B[i][i]) and of its anti-diagonal (B[i][{n - 1} - i]).\n\n"
            f"Output Format: two lines; the first lists r[0] .. r[{n - 1}] and the second c[0] .. c[{n - 1}], "
            "separated by spaces."
        )

    def score(self, data, answer):
        matrix = data["matrix"]
        n = len(matrix)
        permutations = parse_two_permutations(answer, n, n)
        if permutations is None:
            return INVALID
        rows, cols = permutations
        cells = diagonal_cells(n)
        return fraction_reward(sum(matrix[rows[i]][cols[j]] for i, j in cells), len(cells), beta=5)
