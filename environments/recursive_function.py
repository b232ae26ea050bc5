"""RecursiveFunction: evaluate an Ackermann-style doubly recursive function f(M, N).

The catalog only says "Ackermann-like" with M, N up to 3, 4, 5, 6, ... (which the true
Ackermann function cannot reach beyond M = 3). This version keeps Ackermann's rules but
reduces every value modulo a fixed prime, so f is defined, finite and exactly computable at
every level, and equals Ackermann's function wherever that stays below the modulus.
"""

from environments._common import ExactIntegerEnvironment
from rlve_jax.env import grow_1p1

MODULUS = 10007


def evaluate(m: int, n: int) -> int:
    """Row by row: f(m, .) is needed at arguments below MODULUS (and up to n itself)."""
    width = max(MODULUS, n + 1)
    row = [(k + 1) % MODULUS for k in range(width)]
    for _ in range(m):
        nxt = [row[1]]
        for _ in range(1, width):
            nxt.append(row[nxt[-1]])
        row = nxt
    return row[n]


class RecursiveFunction(ExactIntegerEnvironment):
    name = "RecursiveFunction"

    def levels(self, difficulty):
        return [{"MAX_M_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        m, n = rng.randint(1, params["MAX_M_N"]), rng.randint(1, params["MAX_M_N"])
        return {"M": m, "N": n, "reference": str(evaluate(m, n))}

    def prompt(self, data):
        return (
            "Define a function f on pairs of non-negative integers by:\n"
            f"- f(0, n) = (n + 1) mod {MODULUS}\n"
            "- f(m, 0) = f(m - 1, 1) for m >= 1\n"
            "- f(m, n) = f(m - 1, f(m, n - 1)) for m >= 1 and n >= 1\n"
            f"(so every value lies between 0 and {MODULUS - 1}). Compute f({data['M']}, {data['N']}).\n\n"
            "Output Format: a single integer."
        )
