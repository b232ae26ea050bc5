"""RecursiveFunction: evaluate the original's doubly recursive function f(M, N) exactly.

f(0, n) = n + 1; f(m, 0) = f(m - 1, 1); for m, n >= 1, with h = floor(m / 2),
f(m, n) = f(h, f(h, floor(n / 2))) + f(h, f(h, n - 1)). Halving m keeps the values finite and
moderate (about 10^2.4 at d = 8), so no modulus is needed.
"""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1

WORK_BUDGET = 20_000  # memoised values f(m, .) an instance may need; (M, N) above it are redrawn
# Every f(m, n) with m >= 16 and n >= 1 is over the budget (checked for m < 60; it needs row floor(m/2) >= 8
# at arguments f(8, .) ~ 500 n and beyond), so such pairs are redrawn without being evaluated.
M_LIMIT = 16


class OverBudget(Exception):
    """Evaluating f would need more than WORK_BUDGET memoised values."""


def evaluate(m: int, n: int, budget: float = float("inf")) -> int:
    """f(m, n), filling the rows f(k, 0..) in increasing argument order as far as they are needed.

    Row m needs row m - 1 only at argument 1 and row floor(m/2) at many arguments, so the call depth stays
    small while every row is extended iteratively; OverBudget once more than `budget` values are stored.
    """
    rows: dict[int, list[int]] = {}
    stored = 0

    def value(k: int, x: int) -> int:
        nonlocal stored
        row = rows.setdefault(k, [])
        while len(row) <= x:
            j = len(row)
            if k == 0:
                row.append(j + 1)
            elif j == 0:
                row.append(value(k - 1, 1))
            else:
                h = k // 2
                row.append(value(h, value(h, j // 2)) + value(h, value(h, j - 1)))
            stored += 1
            if stored > budget:
                raise OverBudget
        return row[x]

    return value(m, n)


class RecursiveFunction(ExactIntegerEnvironment):
    name = "RecursiveFunction"

    def levels(self, difficulty):
        return [{"MAX_M_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        """M, N = U[1, MAX]. From MAX = 16 (d = 10) some pairs need millions of values (the original's
        generation times out on them); those are redrawn."""
        while True:
            m, n = rng.randint(1, params["MAX_M_N"]), rng.randint(1, params["MAX_M_N"])
            if m >= M_LIMIT:
                continue
            try:
                return {"M": m, "N": n, "reference": str(evaluate(m, n, WORK_BUDGET))}
            except OverBudget:
                continue

    def prompt(self, data):
        return (
            "Define a function f on pairs of non-negative integers by:\n"
            "- f(0, n) = n + 1\n"
            "- f(m, 0) = f(m - 1, 1) for m >= 1\n"
            "- f(m, n) = f(floor(m / 2), f(floor(m / 2), floor(n / 2))) + f(floor(m / 2), f(floor(m / 2), n - 1)) "
            "for m >= 1 and n >= 1\n"
            f"Compute f({data['M']}, {data['N']}).\n\n"
            "Output Format: a single integer."
        )
