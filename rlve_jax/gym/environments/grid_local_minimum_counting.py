"""GridLocalMinimumCounting: numberings of an N x M grid whose strict 8-neighbour local minima are given.

Inclusion-exclusion over the extra cells that could also be minima (cells not touching a
marked cell, in sets with no two adjacent): sum over such sets B of (-1)^|B| times the
numberings in which every cell of T = marks + B is a local minimum. That count is a
chain DP over the order in which the cells of T receive their numbers: a cell outside T
can be numbered only after all its neighbours in T. Insert those cells into the order
from the last stage backwards; a cell released after the i-th cell of T has
(items after it) + 1 slots, which depends only on the set placed so far.
"""

from math import factorial

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format

WORK_BUDGET = 100_000  # sum over the sets T of |T| 2^|T|; instances above it are redrawn


def neighbours(n: int, m: int, r: int, c: int) -> list[tuple[int, int]]:
    return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < m]


def local_minima(values: list[list[int]]) -> list[tuple[int, int]]:
    n, m = len(values), len(values[0])
    return [(r, c) for r in range(n) for c in range(m)
            if all(values[r][c] < values[a][b] for a, b in neighbours(n, m, r, c))]


def numberings_with_minima_at_least(n: int, m: int, special: list[tuple[int, int]]) -> int:
    """Numberings where every cell of `special` (pairwise non-adjacent) is a strict local minimum."""
    t, cells = len(special), n * m
    index = {cell: i for i, cell in enumerate(special)}
    released_by = [0] * (1 << t)  # ordinary cells by the set of special neighbours they wait for
    for r in range(n):
        for c in range(m):
            if (r, c) not in index:
                released_by[sum(1 << index[x] for x in neighbours(n, m, r, c) if x in index)] += 1
    available = released_by[:]  # cells released once a given set of special cells is placed
    for bit in range(t):
        for mask in range(1 << t):
            if mask >> bit & 1:
                available[mask] += available[mask ^ (1 << bit)]
    ordinary = cells - t
    ways = [0] * (1 << t)
    ways[0] = 1
    for placed in range(1 << t):
        if not ways[placed]:
            continue
        for i in range(t):
            if not placed >> i & 1:
                after = placed | 1 << i
                released = available[after] - available[placed]
                later_items = (t - after.bit_count()) + (ordinary - available[after])
                weight = 1
                for slot in range(later_items + 1, later_items + released + 1):
                    weight *= slot
                ways[after] += ways[placed] * weight
    free_cells = available[0]
    return ways[-1] * factorial(cells) // factorial(cells - free_cells)


class OverBudget(Exception):
    """The inclusion-exclusion would cost more than the work budget."""


def exact_minima_sets(n: int, m: int, marked: list[tuple[int, int]],
                      budget: float = float("inf")) -> list[list[tuple[int, int]]]:
    """The sets T = marks + B of the inclusion-exclusion, B independent among the untouched cells.

    Raises OverBudget once the sets found cost more than `budget` (sum of |T| 2^|T|).
    """
    blocked = set(marked)
    for cell in marked:
        blocked.update(neighbours(n, m, *cell))
    candidates = [(r, c) for r in range(n) for c in range(m) if (r, c) not in blocked]
    sets: list[list[tuple[int, int]]] = []
    cost = 0

    def extend(start: int, chosen: list[tuple[int, int]]) -> None:
        nonlocal cost
        sets.append(list(marked) + chosen)
        cost += len(sets[-1]) << len(sets[-1])
        if cost > budget:
            raise OverBudget
        for i in range(start, len(candidates)):
            r, c = candidates[i]
            if all(abs(r - a) > 1 or abs(c - b) > 1 for a, b in chosen):
                chosen.append(candidates[i])
                extend(i + 1, chosen)
                chosen.pop()

    extend(0, [])
    return sets


def count_exact_minima(n: int, m: int, marked: list[tuple[int, int]], budget: float = float("inf")) -> int:
    """Numberings whose local minima are exactly `marked`; OverBudget if that costs too much."""
    return sum((-1) ** (len(s) - len(marked)) * numberings_with_minima_at_least(n, m, s)
               for s in exact_minima_sets(n, m, marked, budget))


class GridLocalMinimumCounting(CountingEnvironment):
    name = "GridLocalMinimumCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        # The exact count is exponential in the number of minima; like the original's generation
        # timeout (a failed generation is skipped), instances beyond a fixed work budget are redrawn.
        while True:
            n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
            order = list(range(1, n * m + 1))
            rng.shuffle(order)
            marked = local_minima([order[r * m:(r + 1) * m] for r in range(n)])
            try:
                gold = count_exact_minima(n, m, marked, WORK_BUDGET)
                break
            except OverBudget:
                continue
        grid = ["".join("X" if (r, c) in marked else "." for c in range(m)) for r in range(n)]
        return {"N": n, "M": m, "grid": grid, "gold": gold}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"Write the integers 1 to {n * m} into the cells of the {n} x {m} grid below, each exactly once. A "
            "cell is a local minimum if its number is smaller than the numbers of all its neighbouring cells "
            "(up to 8: horizontally, vertically and diagonally adjacent). The local minima must be exactly the "
            "cells marked X (every X cell is a local minimum and no . cell is):\n"
            + "\n".join(data["grid"]) + "\n\nHow many ways are there to fill the grid?\n\n" + count_output_format()
        )
