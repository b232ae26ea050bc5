"""Splitting a sequence into consecutive batches: answer parsing (batch ends), batch sums and the exact
segmentation DPs (MinDivisionSumXor, Minimum(Abs)MaxSlicer, QuadraticFunctionSegmentation, TaskArrangement)."""

from __future__ import annotations

from itertools import accumulate
from typing import Callable, Sequence

from rlve_jax.gym.environments._common import parse_ints


def parse_batch_ends(answer: str, n: int, base: int = 1) -> list[int] | None:
    """Batch end indices (`base`-based, strictly increasing, the last one is item n) as exclusive
    0-based ends 1..n, or None when they do not describe a split of the n items."""
    ends = [e + 1 - base for e in parse_ints(answer)]
    if not ends or ends[-1] != n or any(not 0 <= a < b for a, b in zip([0] + ends, ends)):
        return None
    return ends


def batch_sums(values: Sequence[int], ends: Sequence[int]) -> list[int]:
    """Sum of each batch [previous end, end)."""
    return [sum(values[start:end]) for start, end in zip([0, *ends], ends)]


def optimal_segmentation(n: int, batch_value: Callable[[int, int], int],
                         maximize: bool = False) -> tuple[int, list[int]]:
    """(best total, exclusive batch ends) over all splits of n items into consecutive batches,
    a batch [j, i) adding batch_value(j, i) to the total; O(n^2) calls."""
    choose = max if maximize else min
    best, cut = [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        cut[i] = choose(range(i), key=lambda j: best[j] + batch_value(j, i))
        best[i] = best[cut[i]] + batch_value(cut[i], i)
    ends, i = [], n
    while i:
        ends.append(i)
        i = cut[i]
    return best[n], ends[::-1]


def ends_text(ends: Sequence[int], base: int = 1) -> str:
    """Exclusive 0-based ends written as `base`-based end indices."""
    return " ".join(str(e - 1 + base) for e in ends)


def min_max_split(weights: Sequence[int], batches: int) -> tuple[int, list[int]]:
    """(smallest possible largest |batch sum|, exclusive ends) over splits into exactly `batches`
    non-empty consecutive batches; O(batches * n^2)."""
    n = len(weights)
    prefix = list(accumulate(weights, initial=0))
    infinity = float("inf")
    best = [[infinity] * (n + 1) for _ in range(batches + 1)]  # best[k][i]: first i items in k batches
    cut = [[0] * (n + 1) for _ in range(batches + 1)]
    best[0][0] = 0
    for k in range(1, batches + 1):
        for i in range(k, n + 1):
            for j in range(k - 1, i):
                value = max(best[k - 1][j], abs(prefix[i] - prefix[j]))
                if value < best[k][i]:
                    best[k][i], cut[k][i] = value, j
    ends, i = [], n
    for k in range(batches, 0, -1):
        ends.append(i)
        i = cut[k][i]
    return best[batches][n], ends[::-1]
