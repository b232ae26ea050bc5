"""MatrixPermutation_MainDiagonalOne: permute the rows and columns of a 0/1 matrix so the diagonal is all ones."""

from rlve_jax.gym.environments._common import format_bit_matrix, fraction_reward, parse_two_permutations
from rlve_jax.gym.env import Environment


class MatrixPermutation_MainDiagonalOne(Environment):
    name = "MatrixPermutation_MainDiagonalOne"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        extra_density = rng.random() * 0.5
        planted = [[int(i == j or rng.random() < extra_density) for j in range(n)] for i in range(n)]
        rows, columns = list(range(n)), list(range(n))
        rng.shuffle(rows)
        rng.shuffle(columns)
        # shown[rows[i]][columns[j]] = planted[i][j], so choosing rows/columns in that order restores the diagonal
        shown = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                shown[rows[i]][columns[j]] = planted[i][j]
        return {"N": n, "matrix": shown,
                "reference": " ".join(map(str, rows)) + "\n" + " ".join(map(str, columns))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a {n} x {n} matrix A of 0s and 1s (rows and columns indexed from 0):\n"
            f"{format_bit_matrix(data['matrix'])}\n\n"
            f"Find a permutation r[0..{n - 1}] of the rows and a permutation c[0..{n - 1}] of the columns such that "
            f"the permuted matrix B[i][j] = A[r[i]][c[j]] has all ones on its main diagonal, "
            f"i.e. A[r[i]][c[i]] = 1 for every i.\n\n"
            "Output Format: two lines. The first line holds r[0] ... r[N-1] and the second line c[0] ... c[N-1], "
            "each as integers separated by spaces."
        )

    def score(self, data, answer):
        n, matrix = data["N"], data["matrix"]
        permutations = parse_two_permutations(answer, n, n)
        if permutations is None:
            return -0.5
        rows, columns = permutations
        return fraction_reward(sum(matrix[rows[i]][columns[i]] for i in range(n)), n, beta=5)
