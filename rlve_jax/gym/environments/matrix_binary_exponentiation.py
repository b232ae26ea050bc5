"""Matrix_BinaryExponentiation (held-out): A^K modulo 10000."""

from rlve_jax.gym.environments._common import grid_text, parse_int_grid, positional_match_reward
from rlve_jax.gym.env import Environment

MOD = 10_000


def mat_mul(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    return [[sum(x * y for x, y in zip(row, col)) % MOD for col in zip(*b)] for row in a]


def mat_pow(a: list[list[int]], k: int) -> list[list[int]]:
    result = [[int(i == j) for j in range(len(a))] for i in range(len(a))]
    while k:
        if k & 1:
            result = mat_mul(result, a)
        a = mat_mul(a, a)
        k >>= 1
    return result


class Matrix_BinaryExponentiation(Environment):
    name = "Matrix_BinaryExponentiation"

    def levels(self, difficulty):
        return [{"MAX_K": 2 * 2 ** difficulty, "N": n} for n in (2, 3, 5, 10)]

    def sample(self, params, rng):
        n = params["N"]
        matrix = [[rng.randint(0, MOD - 1) for _ in range(n)] for _ in range(n)]
        k = rng.randint(2, params["MAX_K"])
        return {"A": matrix, "K": k, "reference": grid_text(mat_pow(matrix, k))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"You are given a {n} x {n} matrix A:\n{grid_text(data['A'])}\n\n"
            f"Compute A^{data['K']} (matrix power) with every entry taken modulo {MOD}.\n\n"
            f"Output Format: {n} lines, each with {n} integers separated by spaces (entries in [0, {MOD - 1}])."
        )

    def score(self, data, answer):
        n = len(data["A"])
        grid = parse_int_grid(answer, n, n)
        gold = [list(map(int, line.split())) for line in data["reference"].splitlines()]
        flat = [x for row in grid for x in row]
        return positional_match_reward(flat, [x for row in gold for x in row], beta=5)
