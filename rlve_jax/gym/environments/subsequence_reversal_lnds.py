"""SubsequenceReversalLNDS (C16): reverse the values on one chosen subsequence of positions to
make the longest non-decreasing subsequence as long as possible; report that length."""

import functools

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def best_lnds_after_reversal(values: list[int]) -> int:
    """Interval DP over (l, r, lo, hi): the longest non-decreasing subsequence of values in
    [lo, hi] drawn from positions l..r, where outer pairs (l, r) may be swapped (a reversal of a
    subsequence is a nested set of swaps). O(N^2 V^2) states."""
    n = len(values)

    @functools.cache
    def best(left: int, right: int, lo: int, hi: int) -> int:
        if lo > hi or left > right:
            return 0
        if left == right:
            return int(lo <= values[left] <= hi)
        a, b = values[left], values[right]
        result = max(best(left + 1, right, lo, hi), best(left, right - 1, lo, hi),
                     best(left, right, lo + 1, hi), best(left, right, lo, hi - 1))
        if a == lo:
            result = max(result, 1 + best(left + 1, right, lo, hi))
        if b == hi:
            result = max(result, 1 + best(left, right - 1, lo, hi))
        # Swap positions left and right: b moves to the front, a to the back.
        inner = best(left + 1, right - 1, lo, hi)
        if b == lo:
            result = max(result, 1 + inner)
        if a == hi:
            result = max(result, 1 + inner)
        if b == lo and a == hi:
            result = max(result, 2 + inner)
        return result

    return best(0, n - 1, min(values), max(values))


class SubsequenceReversalLNDS(ExactIntegerEnvironment):
    name = "SubsequenceReversalLNDS"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        return {"A": values, "reference": str(best_lnds_after_reversal(values))}

    def prompt(self, data):
        values = data["A"]
        n = len(values)
        return (
            f"You are given an array A of {n} integers: {' '.join(map(str, values))}\n"
            "You may choose any subsequence of positions i1 < i2 < ... < ik (possibly empty) and reverse "
            "the values at those positions: A[i1] and A[ik] are exchanged, A[i2] and A[i(k-1)] are "
            "exchanged, and so on. Do this at most once, so that the longest non-decreasing subsequence of "
            "the resulting array is as long as possible. What is that maximum length?\n\n"
            "Output Format: a single integer."
        )
