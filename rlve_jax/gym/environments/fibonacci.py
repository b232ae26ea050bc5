"""Fibonacci: A[N] of the recurrence A[n] = P*A[n-1] + Q*A[n-2] modulo 10000."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment

MODULUS = 10000


def recurrence_term(a1: int, a2: int, p: int, q: int, n: int) -> int:
    """A[n] mod MODULUS by 2x2 matrix powers, so the cost is logarithmic in n."""
    def multiply(x, y):
        return [[sum(x[i][k] * y[k][j] for k in range(2)) % MODULUS for j in range(2)] for i in range(2)]

    result, base, steps = [[1, 0], [0, 1]], [[p, q], [1, 0]], n - 2
    if n == 1:
        return a1 % MODULUS
    while steps:
        if steps & 1:
            result = multiply(result, base)
        base, steps = multiply(base, base), steps >> 1
    return (result[0][0] * a2 + result[0][1] * a1) % MODULUS


class Fibonacci(ExactIntegerEnvironment):
    name = "Fibonacci"

    def levels(self, difficulty):
        return [{"MAX_N": 3 * 2**difficulty}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        a1, a2, p, q = (rng.randint(0, MODULUS - 1) for _ in range(4))
        return {"N": n, "A1": a1, "A2": a2, "P": p, "Q": q, "reference": str(recurrence_term(a1, a2, p, q, n))}

    def prompt(self, data):
        return (
            f"A sequence is defined by A[1] = {data['A1']}, A[2] = {data['A2']}, and "
            f"A[n] = {data['P']} * A[n-1] + {data['Q']} * A[n-2] for n >= 3.\n"
            f"Compute A[{data['N']}] modulo {MODULUS}.\n\n"
            f"Output Format: a single integer between 0 and {MODULUS - 1}."
        )
