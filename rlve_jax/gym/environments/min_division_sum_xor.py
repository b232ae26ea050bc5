"""MinDivisionSumXor: split an array into at most K consecutive batches so that the bitwise OR of the
batch sums is minimal (the "Bali sculptures" problem; the original's name says xor, its task is OR)."""

from functools import reduce
from itertools import accumulate
from operator import or_

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward
from rlve_jax.gym.environments._segmentation import batch_sums, ends_text, parse_batch_ends
from rlve_jax.gym.env import Environment, FormatError


def fewest_batches_within(values: list[int], allowed: int) -> tuple[int, list[int]]:
    """(fewest batches, their exclusive ends) such that every batch sum uses only the bits of `allowed`;
    the count is len(values) + 1 when impossible."""
    n = len(values)
    prefix = list(accumulate(values, initial=0))
    fewest, cut = [0] + [n + 1] * n, [0] * (n + 1)
    for i in range(1, n + 1):
        for j in range(i):
            if (prefix[i] - prefix[j]) & ~allowed == 0 and fewest[j] + 1 < fewest[i]:
                fewest[i], cut[i] = fewest[j] + 1, j
    ends, i = [], n
    while fewest[n] <= n and i:
        ends.append(i)
        i = cut[i]
    return fewest[n], ends[::-1]


def min_or_split(values: list[int], max_batches: int) -> tuple[int, list[int]]:
    """Greedy from the highest bit down: clear a bit whenever the cleared mask still admits a split
    into at most max_batches batches (the bits above are already fixed, so this is exact)."""
    allowed = (1 << sum(values).bit_length()) - 1
    for bit in reversed(range(allowed.bit_length())):
        if fewest_batches_within(values, allowed & ~(1 << bit))[0] <= max_batches:
            allowed &= ~(1 << bit)
    _, ends = fewest_batches_within(values, allowed)
    return reduce(or_, batch_sums(values, ends), 0), ends


class MinDivisionSumXor(Environment):
    name = "MinDivisionSumXor"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, n * n) for _ in range(n)]
        max_batches = rng.randint(2, n)
        best, ends = min_or_split(values, max_batches)
        return {"A": values, "K": max_batches, "optimum": best, "reference": ends_text(ends)}

    def prompt(self, data):
        n, k = len(data["A"]), data["K"]
        values = " ".join(f"A[{i + 1}]={v}" for i, v in enumerate(data["A"]))
        return (
            f"You are given an array of {n} non-negative integers (1-indexed): {values}\n\n"
            f"Split the array into at most {k} non-empty batches of consecutive elements. Compute the sum of each "
            "batch and take the bitwise OR of all the batch sums. Minimize this OR value.\n\n"
            "Output Format: a single line with the end index of each batch, in increasing order and separated by "
            f"spaces; the last one must be {n}. For example, `2 {n}` means the batches A[1..2] and A[3..{n}]."
        )

    def score(self, data, answer):
        if not answer.strip():
            raise FormatError("empty answer")  # the original: an empty answer is a format error (-1)
        ends = parse_batch_ends(answer, len(data["A"]))
        if ends is None or len(ends) > data["K"]:
            return INVALID
        return minimization_reward(data["optimum"], reduce(or_, batch_sums(data["A"], ends), 0), beta=5)
