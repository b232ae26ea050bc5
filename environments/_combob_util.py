"""Shared pieces of the combinatorics-and-counting batch B: the two counting reward rules,
random trees, modular fractions, and counting under interval/rectangle maximum constraints."""

from __future__ import annotations

import random
from typing import ClassVar, Sequence

from rlve_jax.env import (Environment, FormatError, Problem, parse_int, parse_ints, parse_lines,
                          positional_match_reward, ratio_reward)

PRIME_MODULI = (998244353, 1000000007)


class ModCountingEnvironment(Environment):
    """The answer is data["gold"] modulo data["mod"]: exact 1/0, outside [0, mod) -0.5."""

    def score(self, data, answer):
        value = parse_int(answer)
        if not 0 <= value < data["mod"]:
            return -0.5
        return float(value == data["gold"])

    def reference(self, problem: Problem) -> str:
        return str(problem.data["gold"])


class CountingEnvironment(Environment):
    """The answer is the exact count data["gold"]: (min/max)^10 partial credit.

    A negative answer is a format error (-1); where the catalog says "≤0 → -1" so is zero.
    With a zero count only the answer 0 scores (ratio_reward's convention).
    """

    zero_answer_is_format_error: ClassVar[bool] = False

    def score(self, data, answer):
        value = parse_int(answer)
        if value < 0 or (value == 0 and self.zero_answer_is_format_error):
            return -1.0
        return ratio_reward(value, data["gold"], beta=10)

    def reference(self, problem: Problem) -> str:
        return str(problem.data["gold"])

    def perturb(self, problem: Problem, answer: str) -> str:
        """Off by 1%: with large counts an off-by-one answer is within the 1e-6 accuracy tolerance
        of (min/max)^10 (as in the original), so it would not be a wrong answer."""
        value = int(answer)
        return str(value + max(1, value // 100))


class IntListEnvironment(Environment):
    """The answer is the integer list data["gold"]: wrong length -0.5, else (matching positions)^match_beta."""

    match_beta: ClassVar[float] = 10

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != len(data["gold"]):
            return -0.5
        return positional_match_reward(values, data["gold"], beta=self.match_beta)

    def reference(self, problem: Problem) -> str:
        return " ".join(map(str, problem.data["gold"]))


class IndexChoiceEnvironment(Environment):
    """The answer is a set of distinct 0-based indices into a list of `size` items."""

    @staticmethod
    def distinct_indices(answer: str, size: int) -> list[int] | None:
        """The indices, or None (the invalid reward) if one is out of range or repeated."""
        chosen = parse_ints(answer)
        if any(not 0 <= i < size for i in chosen) or len(set(chosen)) != len(chosen):
            return None
        return chosen

    def perturb(self, problem: Problem, answer: str) -> str:
        """Drop the last index: shifting one could land on an equal item and stay correct."""
        return " ".join(answer.split()[:-1])


def fraction_mod(numerator: int, denominator: int, mod: int) -> int:
    """numerator / denominator as an element of Z_mod (mod prime, denominator not a multiple)."""
    return numerator % mod * pow(denominator, -1, mod) % mod


def random_tree_edges(n: int, rng: random.Random) -> list[list[int]]:
    """A random labelled tree on 0..n-1 as shuffled [u, v] pairs (each vertex hangs off an earlier one)."""
    order = list(range(n))
    rng.shuffle(order)
    edges = [[order[i], order[rng.randrange(i)]] for i in range(1, n)]
    for edge in edges:
        rng.shuffle(edge)
    rng.shuffle(edges)
    return edges


def adjacency(n: int, edges: Sequence[Sequence[int]]) -> list[list[int]]:
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    return neighbours


def rooted_order(neighbours: list[list[int]], root: int) -> tuple[list[int], list[int]]:
    """(parent list with -1 at the root, vertices in BFS order) of a tree given by adjacency lists."""
    parent = [-1] * len(neighbours)
    order, seen = [root], [False] * len(neighbours)
    seen[root] = True
    for u in order:
        for v in neighbours[u]:
            if not seen[v]:
                seen[v], parent[v] = True, u
                order.append(v)
    return parent, order


def subtree_sizes(n: int, edges: Sequence[Sequence[int]], root: int) -> list[int]:
    parent, order = rooted_order(adjacency(n, edges), root)
    size = [1] * n
    for v in reversed(order[1:]):
        size[parent[v]] += size[v]
    return size


def count_under_exact_maxima(cell_sizes: Sequence[int], constraints: Sequence[tuple[Sequence[int], int]],
                             free_max: int) -> int:
    """Fillings of cells with values in [1, free_max] where each constraint's cells have maximum exactly its value.

    A cell of size s holds s independent entries. A cell's cap is the smallest value among the constraints
    covering it; a constraint of value v can only reach v at cells whose cap is v, so the count factorises
    over values, each factor being an inclusion-exclusion over the constraints with that value.
    """
    caps = [free_max] * len(cell_sizes)
    covered = [False] * len(cell_sizes)
    for cells, value in constraints:
        for cell in cells:
            caps[cell] = min(caps[cell], value) if covered[cell] else value
            covered[cell] = True
    total = 1
    for cell, size in enumerate(cell_sizes):
        if not covered[cell]:
            total *= free_max ** size
    for value in sorted({value for _, value in constraints}):
        group = [cell for cell in range(len(cell_sizes)) if covered[cell] and caps[cell] == value]
        reach = [[cell for cell in cells if caps[cell] == value] for cells, v in constraints if v == value]
        if any(not cells for cells in reach):
            return 0
        group_size = sum(cell_sizes[cell] for cell in group)
        factor = 0
        for subset in range(1 << len(reach)):
            lowered: set[int] = set()
            for index, cells in enumerate(reach):
                if subset >> index & 1:
                    lowered.update(cells)
            lowered_size = sum(cell_sizes[cell] for cell in lowered)
            sign = -1 if bin(subset).count("1") % 2 else 1
            factor += sign * value ** (group_size - lowered_size) * (value - 1) ** lowered_size
        total *= factor
    return total


def parse_two_permutations(answer: str, rows: int, columns: int) -> tuple[list[int], list[int]] | None:
    """Two lines of integers: a permutation of 0..rows-1 then one of 0..columns-1.

    Not exactly two lines of integers is a format error; two integer lines that are not such
    permutations give None (the caller's invalid reward).
    """
    lines = parse_lines(answer)
    if len(lines) != 2:
        raise FormatError("expected two lines")
    first, second = parse_ints(lines[0]), parse_ints(lines[1])
    if sorted(first) != list(range(rows)) or sorted(second) != list(range(columns)):
        return None
    return first, second


def format_bit_matrix(matrix: Sequence[Sequence[int]]) -> str:
    """One line per row, the 0/1 entries written without separators."""
    return "\n".join("".join(map(str, row)) for row in matrix)
