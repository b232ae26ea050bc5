"""RandomRangeMaxExpectation: expected array after Q random 'set a random subarray to its maximum' operations."""

from rlve_jax.gym.environments._common import IntListEnvironment, grow_1p1

MOD = 10000


def sequences_keeping_low(values: list[int], position: int, threshold: int, q: int) -> int:
    """Operation sequences (mod MOD) after which values[position] is still below `threshold`.

    Thresholding makes the array 0/1 and an operation an OR over its range, so the position stays 0
    iff no operation covers it together with a 1. The state is the maximal run of zeros [L, R]
    around it: operations reaching past a bounding 1 either kill the position or shrink the run.
    """
    n = len(values)
    total_ops = n * (n + 1) // 2
    left, right = position, position
    while left > 0 and values[left - 1] < threshold:
        left -= 1
    while right < n - 1 and values[right + 1] < threshold:
        right += 1
    ways = {(left, right): 1}
    for _ in range(q):
        nxt: dict[tuple[int, int], int] = {}
        for (lo, hi), count in ways.items():
            covering = (position + 1) * (n - position)
            covering_inside = (position - lo + 1) * (hi - position + 1)
            shrink_left = lo * (position - lo)  # [x, y] with x < lo <= y < position
            shrink_right = (n - 1 - hi) * (hi - position)  # [x, y] with position < x <= hi < y
            stay = total_ops - (covering - covering_inside) - shrink_left - shrink_right
            nxt[lo, hi] = (nxt.get((lo, hi), 0) + count * stay) % MOD
            for y in range(lo, position):
                nxt[y + 1, hi] = (nxt.get((y + 1, hi), 0) + count * lo) % MOD
            for x in range(position + 1, hi + 1):
                nxt[lo, x - 1] = (nxt.get((lo, x - 1), 0) + count * (n - 1 - hi)) % MOD
        ways = nxt
    return sum(ways.values()) % MOD


def scaled_expectations(values: list[int], q: int) -> list[int]:
    """Sum over all operation sequences of each final value, mod MOD: final = sum over thresholds of [final >= u]."""
    n = len(values)
    all_sequences = (n * (n + 1) // 2) ** q
    thresholds = sorted({v for v in values if v > 0})
    result = []
    for position in range(n):
        total, previous = 0, 0
        for threshold in thresholds:
            reached = all_sequences
            if values[position] < threshold:
                reached -= sequences_keeping_low(values, position, threshold, q)
            total += (threshold - previous) * reached
            previous = threshold
        result.append(total % MOD)
    return result


class RandomRangeMaxExpectation(IntListEnvironment):
    name = "RandomRangeMaxExpectation"
    match_beta = 3

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        q = rng.randint(1, n)
        values = [rng.randint(0, n) for _ in range(n)]
        return {"values": values, "Q": q, "gold": scaled_expectations(values, q)}

    def prompt(self, data):
        values, q = data["values"], data["Q"]
        n = len(values)
        return (
            f"You are given an array of {n} integers: {' '.join(map(str, values))}\n"
            f"Perform {q} operations one after another. Each operation picks a subarray [l, r] with 1 <= l <= r <= {n} "
            f"uniformly at random among all {n * (n + 1) // 2} subarrays, and sets every element of that subarray to "
            f"the maximum of the subarray. For each position i, let E_i be the expected value of the element at "
            f"position i after all operations. Then E_i * ({n * (n + 1) // 2})^{q} is an integer.\n\n"
            f"Output Format: a single line with {n} integers separated by spaces: E_i * "
            f"({n * (n + 1) // 2})^{q} modulo {MOD}, for i = 1 to {n}."
        )
