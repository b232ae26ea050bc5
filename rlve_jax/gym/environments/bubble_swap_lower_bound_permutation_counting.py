"""BubbleSwapLowerBound_PermutationCounting: permutations after P whose bubble sort meets the lower bound.

Bubble sort needs exactly (number of inversions) swaps, and that equals sum |i - p_i| / 2
exactly for the permutations without a decreasing subsequence of length 3. Those are
the permutations in which every element is either a new prefix maximum or the smallest
value not used yet; the counts below follow that characterisation.
"""

from functools import cache

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format


@cache
def completions(remaining: int, below_max: int) -> int:
    """Valid ways to finish when `remaining` values are unused, `below_max` of them below the maximum."""
    if remaining == 0:
        return 1
    total = completions(remaining - 1, below_max - 1) if below_max else 0
    for rank in range(1, remaining - below_max + 1):  # new maximum: the rank-th unused value above it
        total += completions(remaining - 1, below_max + rank - 1)
    return total


def count_greater_valid(perm: list[int]) -> int:
    """Valid permutations lexicographically greater than `perm` (values 1..N)."""
    n = len(perm)
    unused = set(range(1, n + 1))
    maximum, total = 0, 0
    for value in perm:
        smallest = min(unused)
        for candidate in sorted(unused):
            if candidate <= value:
                continue
            if candidate > maximum:
                new_max = candidate
            elif candidate == smallest:
                new_max = maximum
            else:
                continue
            rest = len(unused) - 1
            below = sum(1 for u in unused if u < new_max and u != candidate)
            total += completions(rest, below)
        if value < maximum and value != smallest:
            break  # the prefix of P itself is no longer extendable
        maximum = max(maximum, value)
        unused.remove(value)
    return total


class BubbleSwapLowerBound_PermutationCounting(CountingEnvironment):
    name = "BubbleSwapLowerBound_PermutationCounting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        perm = list(range(1, params["N"] + 1))
        rng.shuffle(perm)
        return {"N": params["N"], "P": perm, "gold": count_greater_valid(perm)}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Bubble sort sorts a permutation p[1..{n}] by repeatedly swapping adjacent out-of-order elements; "
            "it needs at least (|1 - p[1]| + |2 - p[2]| + ... + |N - p[N]|) / 2 swaps, where N is the length. "
            "Call a permutation good if bubble sort sorts it with exactly that many swaps (that is, its "
            "number of inversions equals the sum of |i - p[i]| divided by 2).\n"
            f"Given the permutation P = {' '.join(map(str, data['P']))} of 1..{n}, count the good "
            f"permutations of 1..{n} that are lexicographically strictly greater than P.\n\n"
            + count_output_format()
        )
