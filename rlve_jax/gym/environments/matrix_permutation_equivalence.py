"""MatrixPermutationEquivalence: find row and column permutations that turn 0/1 matrix A into B."""

from rlve_jax.gym.environments._common import format_bit_matrix, fraction_reward, parse_two_permutations
from rlve_jax.gym.env import Environment


class MatrixPermutationEquivalence(Environment):
    name = "MatrixPermutationEquivalence"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        a = [[rng.randint(0, 1) for _ in range(m)] for _ in range(n)]
        rows, columns = list(range(n)), list(range(m))
        rng.shuffle(rows)
        rng.shuffle(columns)
        b = [[a[rows[i]][columns[j]] for j in range(m)] for i in range(n)]
        return {"N": n, "M": m, "A": a, "B": b,
                "reference": " ".join(map(str, rows)) + "\n" + " ".join(map(str, columns))}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"You are given two {n} x {m} matrices A and B of 0s and 1s (rows and columns indexed from 0).\n"
            f"A:\n{format_bit_matrix(data['A'])}\n\nB:\n{format_bit_matrix(data['B'])}\n\n"
            f"Find a permutation r[0..{n - 1}] of the rows and a permutation c[0..{m - 1}] of the columns such that "
            f"A[r[i]][c[j]] = B[i][j] for every cell (i, j).\n\n"
            "Output Format: two lines. The first line holds r[0] ... r[N-1] and the second line c[0] ... c[M-1], "
            "each as integers separated by spaces."
        )

    def score(self, data, answer):
        n, m, a, b = data["N"], data["M"], data["A"], data["B"]
        permutations = parse_two_permutations(answer, n, m)
        if permutations is None:
            return -0.5
        rows, columns = permutations
        matching = sum(a[rows[i]][columns[j]] == b[i][j] for i in range(n) for j in range(m))
        return fraction_reward(matching, n * m, beta=5)
