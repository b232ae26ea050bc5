"""MaxRMQExpectation: E[max over the query intervals of the interval minimum] for a uniform random array."""

from rlve_jax.gym.environments._common import PRIME_MODULI, ModCountingEnvironment
from rlve_jax.gym.environments._numbers import fraction_mod


def arrays_with_every_interval_hit(n: int, small: int, large: int, intervals: list[list[int]]) -> int:
    """Weighted count of arrays where every interval holds a 'small' entry (`small` choices, else `large`).

    DP over the position of the last small entry; intervals ending at a position prune the states.
    """
    ending_at = [[] for _ in range(n + 1)]
    for left, right in intervals:
        ending_at[right].append(left)
    ways = [1] + [0] * n  # ways[j]: the last small entry is at position j (0 = none yet)
    for position in range(1, n + 1):
        ways[position] = sum(ways) * small
        for j in range(position):
            ways[j] *= large
        for left in ending_at[position]:
            for j in range(left):
                ways[j] = 0
    return sum(ways)


def total_of_max_min(n: int, x: int, intervals: list[list[int]]) -> int:
    """Sum over all x^n arrays of max_q min(interval q): sum over v of #arrays with the max-min >= v."""
    return sum(x ** n - arrays_with_every_interval_hit(n, v - 1, x - v + 1, intervals) for v in range(1, x + 1))


class MaxRMQExpectation(ModCountingEnvironment):
    name = "MaxRMQExpectation"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        x, q = rng.randint(2, n), rng.randint(1, n)
        intervals = [sorted((rng.randint(1, n), rng.randint(1, n))) for _ in range(q)]
        mod = rng.choice(PRIME_MODULI)
        return {"N": n, "X": x, "intervals": intervals, "mod": mod,
                "gold": fraction_mod(total_of_max_min(n, x, intervals), x ** n, mod)}

    def prompt(self, data):
        n, x, mod = data["N"], data["X"], data["mod"]
        intervals = "\n".join(f"[{left}, {right}]" for left, right in data["intervals"])
        return (
            f"An array A[1..{n}] is filled with independent random integers, each uniform on [1, {x}]. "
            f"You are given {len(data['intervals'])} intervals (inclusive):\n{intervals}\n"
            f"For each interval take the minimum of A over it; let S be the largest of these minima. "
            f"Compute the expected value of S.\n\n"
            f"Output Format: a single integer. The expectation is a fraction P/Q in lowest terms; output "
            f"P * Q^(-1) modulo {mod}, where Q^(-1) is the modular inverse of Q modulo the prime {mod}."
        )
