"""Helpers shared across the gym: answer-shape base classes, objective rewards, answer parsers,
perturbations for tests, random trees, tree and graph basics, and exact solvers (union-find,
assignment, bipartite matching, maximum flow).

The one home of an environment author's helpers (rlve_jax.gym.env holds the contract only: Environment,
Problem, Verdict, FormatError): the answer parsers, the single-integer scorers (score_exact, score_mod,
score_count), reward shapes, the growth rules and INVALID are here too. Topic modules hold what only one
family of environments needs: _graphs (random graphs, graph prompts, shortest paths), _puzzles (grid puzzles),
_numbers (number theory, polynomials), _formulas (restricted expression parsers), _strings, _segmentation.

Everything here is deterministic given the `random.Random` passed in.
"""

from __future__ import annotations

import heapq
import math
import random
import re
from bisect import bisect_right
from collections import deque
from typing import Any, Callable, ClassVar, Sequence

from rlve_jax.gym.env import FORMAT_ERROR_REWARD, MAX_ANSWER_CHARS, Environment, FormatError, Problem, long_int_text

# ---------------------------------------------------------------------------
# Reward conventions

INVALID = -0.5  # the usual reward for a parseable but infeasible answer (the catalog says where it differs)
# Accuracy is exact: reward >= the problem's pass threshold, with no tolerance. The original's 1e-6 let a wrong
# count pass once (min/max)^beta is within 1e-6 of 1 (answer + 1 at counts above ~10^7); the shared reward
# helpers below keep every wrong answer strictly below 1, and the few environments whose rewards are
# floating-point measurements (RootExtraction, SmallestCircle, PolynomialMinimum) set their own threshold.
ALMOST_ONE = math.nextafter(1.0, 0.0)  # the largest reward below 1: a wrong answer's cap

# ---------------------------------------------------------------------------
# Parsing helpers for scorers (all raise FormatError on bad input)

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def check_length(text: str) -> str:
    """The stripped answer; FormatError if it is longer than MAX_ANSWER_CHARS."""
    if len(text) > MAX_ANSWER_CHARS:
        raise FormatError("answer too long")
    return text.strip()


def parse_int(text: str) -> int:
    """A single (ASCII) integer, nothing else; at most 4,300 digits (MAX_ANSWER_CHARS in an environment
    with `long_answers`)."""
    text = check_length(text)
    if not _INT.fullmatch(text):
        raise FormatError(f"not an integer: {text[:40]!r}")
    try:
        return int(text)
    except ValueError as error:  # more digits than int() accepts
        raise FormatError(str(error)) from None


def parse_ints(text: str, sep: str | None = None) -> list[int]:
    """Integers separated by whitespace (or `sep`); empty text gives []."""
    text = check_length(text)
    return [parse_int(token) for token in text.split(sep)] if text else []


def parse_float(text: str) -> float:
    """A single finite decimal number."""
    text = check_length(text)
    if len(text) > 1000 or not _FLOAT.fullmatch(text):
        raise FormatError(f"not a number: {text[:40]!r}")
    value = float(text)
    if not math.isfinite(value):
        raise FormatError("non-finite number")
    return value


def parse_lines(text: str) -> list[str]:
    """Non-empty stripped lines."""
    return [line.strip() for line in check_length(text).splitlines() if line.strip()]


def parse_int_rows(text: str) -> list[list[int]]:
    """A matrix: one line per row, integers separated by whitespace."""
    return [parse_ints(line) for line in parse_lines(text)]


# ---------------------------------------------------------------------------
# Reward shapes and single-integer scorers used across the gym (rlve_reference.md section a)


def ratio_reward(answer: float, reference: float, beta: float) -> float:
    """(min/max)^beta for counting answers; both must be positive.

    A wrong answer stays below 1 even where the float ratio rounds to 1 (counts above ~10^16).
    """
    if reference == answer:
        return 1.0
    if reference <= 0 or answer <= 0:
        return 0.0
    return min((min(answer, reference) / max(answer, reference)) ** beta, ALMOST_ONE)


def fraction_reward(good: int, total: int, beta: float) -> float:
    """(good/total)^beta, e.g. satisfied constraints or matching positions; below 1 unless good == total."""
    if good == total or total == 0:
        return 1.0
    return min((good / total) ** beta, ALMOST_ONE)


def positional_match_reward(answer: Sequence[Any], gold: Sequence[Any], beta: float) -> float:
    """mean([answer_i == gold_i])^beta for equal-length sequences."""
    return fraction_reward(sum(a == g for a, g in zip(answer, gold)), len(gold), beta)


def score_exact(answer: str, gold: int) -> float:
    """Binary single-integer answers: 1 for the gold integer, else 0."""
    return float(parse_int(answer) == gold)


def score_mod(answer: str, gold: int, mod: int) -> float:
    """'Answer modulo MOD' environments: an integer outside [0, MOD) is invalid (-0.5), else exact 1 / 0."""
    value = parse_int(answer)
    if not 0 <= value < mod:
        return INVALID
    return float(value == gold)


def score_count(answer: str, gold: int, beta: float = 10, positive: bool = False) -> float:
    """Counting answers: (min/max)^beta; a negative (with `positive`, also a zero) answer gets -1.

    A gold count of 0 is matched only by 0 (ratio_reward).
    """
    value = parse_int(answer)
    if value < 0 or (positive and value == 0):
        return FORMAT_ERROR_REWARD
    return ratio_reward(value, gold, beta)


# ---------------------------------------------------------------------------
# Difficulty levels: the controllers' growth rules and knob sweeps (rlve_reference.md section a)


def grow(x: int, rule, times: int) -> int:
    """Apply a controller growth rule `times` times, e.g. grow(3, lambda x: 2 * x, d)."""
    for _ in range(times):
        x = rule(x)
    return x


def grow_1p1(x: int, times: int) -> int:
    """The controllers' most common rule x <- floor(1.1 x + 1), `times` times: 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, ..."""
    for _ in range(times):
        x = int(1.1 * x + 1)
    return x


def grow_1p5(x: int, times: int) -> int:
    """The rule x <- floor(1.5 x), `times` times: 10, 15, 22, 33, 49, ..."""
    for _ in range(times):
        x = int(1.5 * x)
    return x


def sweep(low: float, high: float, step: float = 0.1) -> tuple[float, ...]:
    """A controller's knob sweep low, low + step, ..., high (e.g. edge densities 0.1..0.9), printing cleanly."""
    count = round((high - low) / step)
    return tuple(round(low + k * step, 6) for k in range(count + 1))


# ---------------------------------------------------------------------------
# Answer shapes: base classes that carry a catalog reward rule


# The original's two prime lists for environments that draw a modulus (the facts sheet, section 3.3).
PRIME_MODULI = (666623333, 998244353, 1000000007)
BIG_PRIME_MODULI = (1000000007, 998244353)


def mod_output_format(mod: int) -> str:
    return f"Output Format: a single integer, the answer modulo {mod} (an integer in [0, {mod}))."


def count_output_format() -> str:
    return "Output Format: a single non-negative integer, the exact count."


class CountingEnvironment(Environment):
    """The answer is the exact count data["gold"], scored (min/max)^beta (score_count).

    A negative answer gets -1; so does 0 with `positive_only` (the catalog's "<=0 -> -1").
    """

    beta: ClassVar[float] = 10
    positive_only: ClassVar[bool] = False

    def score(self, data, answer):
        return score_count(answer, data["gold"], self.beta, self.positive_only)

    def reference(self, problem: Problem) -> str:
        with long_int_text():  # our own count, however long (`long_answers` lets the verifier read it back)
            return str(problem.data["gold"])


class ModCountingEnvironment(Environment):
    """The answer is data["gold"] modulo data[mod_key]: exact 1/0, outside [0, MOD) -0.5 (score_mod)."""

    mod_key: ClassVar[str] = "mod"

    def score(self, data, answer):
        return score_mod(answer, data["gold"], data[self.mod_key])

    def reference(self, problem: Problem) -> str:
        return str(problem.data["gold"])


class ExactIntegerEnvironment(Environment):
    """The answer is the single integer in data["reference"]: 1 if equal, else 0."""

    def score(self, data, answer):
        return score_exact(answer, int(data["reference"]))


def score_sequence(answer: str, gold: Sequence[int], beta: float, wrong_length: float = INVALID) -> float:
    """Integer sequences: (matching positions)^beta against `gold`; `wrong_length` when the length differs."""
    values = parse_ints(answer)
    if len(values) != len(gold):
        return wrong_length
    return positional_match_reward(values, gold, beta)


class IntListEnvironment(Environment):
    """The answer is the integer list data["gold"]: wrong length -0.5, else (matching positions)^match_beta."""

    match_beta: ClassVar[float] = 10

    def score(self, data, answer):
        return score_sequence(answer, data["gold"], self.match_beta)

    def reference(self, problem: Problem) -> str:
        return " ".join(map(str, problem.data["gold"]))


class PermutationAnswer(Environment):
    """Answers that must be a permutation of 1..N (else -0.5), scored by positional match with data["gold"]."""

    beta = 10

    def score(self, data, answer):
        order = parse_ints(answer)
        if sorted(order) != list(range(1, len(data["gold"]) + 1)):
            return INVALID
        return positional_match_reward(order, data["gold"], self.beta)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))

    def perturb(self, problem, answer):
        tokens = answer.split()
        return " ".join(tokens[1:] + tokens[:1])  # the same labels in a wrong order


class TwoWordAnswer(Environment):
    """Answers that are one of two words (a game's winner, Yes/No): exact 1/0, any other word -0.5."""

    words: tuple[str, str] = ("", "")

    def draw_with_answer(self, rng: random.Random, draw: Callable[[], Any],
                         first_word_holds: Callable[[Any], bool]) -> tuple[Any, str]:
        """Pick the answer 50/50 first, then redraw the instance until it has that answer."""
        answer = rng.choice(self.words)
        while True:
            instance = draw()
            if self.words[not first_word_holds(instance)] == answer:
                return instance, answer

    def score(self, data, answer):
        word = answer.strip()
        if word not in self.words:
            return INVALID
        return float(word == data["reference"])

    def perturb(self, problem, answer):
        return self.words[answer == self.words[0]]


# ---------------------------------------------------------------------------
# Objective rewards of optimization tasks, for answers already checked to be feasible


def minimization_reward(optimum: float, value: float, beta: float) -> float:
    """(optimum/value)^beta for a feasible answer of a minimisation task (value >= optimum >= 0)."""
    if value <= optimum:
        return 1.0
    return min((optimum / value) ** beta, ALMOST_ONE)  # a worse answer stays below 1 (exact accuracy)


def maximization_reward(value: float, optimum: float, beta: float) -> float:
    """(value/optimum)^beta for a feasible answer of a maximisation task (0 <= value <= optimum)."""
    if value >= optimum:
        return 1.0
    return min((max(value, 0) / optimum) ** beta, ALMOST_ONE)  # a worse answer stays below 1 (exact accuracy)


# ---------------------------------------------------------------------------
# Nearby wrong answers for the conformance tests (Environment.perturb)


def drop_last_tokens(answer: str, count: int = 1) -> str:
    """The answer without its last `count` tokens: one value fewer, for answers where moving one value
    can land on another optimum (a wrong count, a strictly worse choice or an invalid answer)."""
    return " ".join(answer.split()[:-count])


class DropLastTokenPerturbation(Environment):
    """Environments whose test perturbation drops the last token (drop_last_tokens)."""

    def perturb(self, problem: Problem, answer: str) -> str:
        return drop_last_tokens(answer)


def drop_last_line(answer: str) -> str:
    """One line fewer, for answers of one item per line."""
    return "\n".join(answer.splitlines()[:-1])


def repeat_first_token(answer: str, fallback: str) -> str:
    """A repeated index (invalid), or `fallback` when the answer is empty."""
    tokens = answer.split()
    return f"{answer} {tokens[0]}" if tokens else fallback


def perturb_count(self, problem, answer: str) -> str:
    """Environment.perturb for (min/max)^beta counts (use as `perturb = perturb_count`): a clearly wrong count."""
    return str(2 * int(answer) + 1)


# ---------------------------------------------------------------------------
# Answer parsers: FormatError for text that is not of the asked shape, None for the invalid reward


def parse_pair(text: str) -> tuple[int, int]:
    """Exactly two integers; anything else is a format error."""
    values = parse_ints(text)
    if len(values) != 2:
        raise FormatError("expected two integers")
    return values[0], values[1]


def parse_pair_lines(answer: str) -> list[tuple[int, int]]:
    """One pair of integers per non-empty line; any other line is a format error."""
    return [parse_pair(line) for line in parse_lines(answer)]


def parse_flat_pairs(answer: str) -> list[tuple[int, int]]:
    """A flat list `u1 v1 u2 v2 ...`; an odd count is a format error."""
    values = parse_ints(answer)
    if len(values) % 2:
        raise FormatError("odd number of integers")
    return list(zip(values[::2], values[1::2]))


def parse_exact_ints(answer: str, count: int) -> list[int]:
    """Exactly `count` integers; any other count is a format error."""
    values = parse_ints(answer)
    if len(values) != count:
        raise FormatError(f"expected {count} integers")
    return values


def distinct_in_range(values: Sequence[int], low: int, high: int) -> bool:
    """All values in [low, high] and pairwise distinct."""
    return all(low <= v <= high for v in values) and len(set(values)) == len(values)


def is_permutation(values: Sequence[int], n: int) -> bool:
    return len(values) == n and sorted(values) == list(range(n))


def parse_distinct_indices(answer: str, size: int, base: int = 0) -> list[int] | None:
    """0-based indices from an answer of distinct indices base..base+size-1, or None if one is
    out of range or repeated (the caller's invalid reward)."""
    chosen = [i - base for i in parse_ints(answer)]
    if any(not 0 <= i < size for i in chosen) or len(set(chosen)) != len(chosen):
        return None
    return chosen


def parse_increasing_indices(answer: str, n: int, base: int = 0) -> list[int] | None:
    """A strictly increasing list of indices in [base, base + n), shifted to start at 0; None if it is not one."""
    indices = [i - base for i in parse_ints(answer)]
    if any(not 0 <= i < n for i in indices) or any(a >= b for a, b in zip(indices, indices[1:])):
        return None
    return indices


def parse_permutation(answer: str, size: int, base: int = 0) -> list[int] | None:
    """A permutation of base..base+size-1 as 0-based values, or None if it is not one."""
    values = parse_ints(answer)
    if sorted(values) != list(range(base, base + size)):
        return None
    return [v - base for v in values]


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


def parse_int_grid(answer: str, rows: int, cols: int) -> list[list[int]]:
    """`rows` lines of exactly `cols` integers; a wrong shape is a format error (the original's -1)."""
    grid = parse_int_rows(answer)
    if len(grid) != rows or any(len(row) != cols for row in grid):
        raise FormatError("wrong grid shape")
    return grid


def parse_char_grid(answer: str, rows: int, cols: int, alphabet: str, ignore_spaces: bool = False) -> list[str]:
    """`rows` lines of exactly `cols` characters from `alphabet` (with `ignore_spaces`, spaces between them
    are dropped first); anything else is a format error."""
    lines = parse_lines(answer)
    if ignore_spaces:
        lines = [line.replace(" ", "") for line in lines]
    if len(lines) != rows or any(len(line) != cols for line in lines):
        raise FormatError("wrong grid shape")
    if any(ch not in alphabet for line in lines for ch in line):
        raise FormatError("unexpected character")
    return lines


def parse_letters(answer: str, alphabet: str) -> str:
    """A move string over `alphabet` (white space ignored); any other character is a format error."""
    letters = "".join(answer.split())
    if any(ch not in alphabet for ch in letters):
        raise FormatError("unexpected character")
    return letters


# ---------------------------------------------------------------------------
# Prompt text


def edge_lines(edges: Sequence[Sequence[int]], empty: str = "") -> str:
    """One `(a, b, ...)` tuple per line, as the prompts show edges; `empty` when there are none."""
    return "\n".join("(" + ", ".join(map(str, e)) + ")" for e in edges) or empty


def grid_text(grid: Sequence[Sequence[object]]) -> str:
    """One line per row, cells separated by single spaces."""
    return "\n".join(" ".join(map(str, row)) for row in grid)


def format_bit_matrix(matrix: Sequence[Sequence[int]]) -> str:
    """One line per row, the 0/1 entries written without separators."""
    return "\n".join("".join(map(str, row)) for row in matrix)


def set_text(low: int, high: int) -> str:
    """{low, ..., high} written out in full when short."""
    if high - low < 4:
        return "{" + ", ".join(map(str, range(low, high + 1))) + "}"
    return f"{{{low}, {low + 1}, ..., {high}}}"


# ---------------------------------------------------------------------------
# Random trees


def random_tree(n: int, rng: random.Random, orientation: str | None = None) -> list[list[int]]:
    """A random recursive tree on 0..n-1: labels shuffled, each vertex hangs off a uniformly chosen earlier one.

    The edge presentation fixes which further draws are made (each is a different problem stream):
      None       [parent, child] pairs in attachment order, no further draws;
      "shuffle"  [child, parent] pairs, then each pair and finally the list shuffled;
      "coin"     each pair flipped on a coin toss as it is drawn, then the list shuffled.
    """
    order = list(range(n))
    rng.shuffle(order)
    if orientation == "coin":
        edges = []
        for i in range(1, n):
            u, v = order[i], order[rng.randrange(i)]
            edges.append([u, v] if rng.random() < 0.5 else [v, u])
        rng.shuffle(edges)
        return edges
    edges = [[order[rng.randrange(i)], order[i]] for i in range(1, n)]
    if orientation == "shuffle":
        edges = [[child, parent] for parent, child in edges]
        for edge in edges:
            rng.shuffle(edge)
        rng.shuffle(edges)
    elif orientation is not None:
        raise ValueError(f"unknown orientation {orientation!r}")
    return edges


def prufer_tree(n: int, rng: random.Random) -> list[list[int]]:
    """A uniformly random labelled tree on 0..n-1 (decoded from a random Prüfer sequence), edges shuffled
    and each flipped on a coin toss."""
    if n <= 2:
        return [[0, 1]] if n == 2 else []
    code = [rng.randrange(n) for _ in range(n - 2)]
    degree = [1] * n
    for v in code:
        degree[v] += 1
    leaves = [v for v in range(n) if degree[v] == 1]
    heapq.heapify(leaves)
    edges = []
    for v in code:
        leaf = heapq.heappop(leaves)
        edges.append([leaf, v])
        degree[v] -= 1
        if degree[v] == 1:
            heapq.heappush(leaves, v)
    edges.append([heapq.heappop(leaves), heapq.heappop(leaves)])
    rng.shuffle(edges)
    return [e if rng.random() < 0.5 else e[::-1] for e in edges]


# ---------------------------------------------------------------------------
# Trees and graphs: adjacency, traversal, distances, union-find

INF = float("inf")


def adjacency(n: int, edges: Sequence[Sequence[int]], sort: bool = False) -> list[list[int]]:
    """Undirected adjacency lists from [u, v, ...] edges, in edge order (ascending with `sort`)."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for u, v, *_ in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    return [sorted(vs) for vs in neighbours] if sort else neighbours


def weighted_adjacency(n: int, edges: Sequence[Sequence[int]]) -> list[list[tuple[int, int]]]:
    """Undirected adjacency lists of (neighbour, weight) from [u, v, w] edges."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
        adjacent[v].append((u, w))
    return adjacent


def adjacency_sets(n: int, edges: Sequence[Sequence[int]]) -> list[set[int]]:
    adjacent: list[set[int]] = [set() for _ in range(n)]
    for u, v in (e[:2] for e in edges):
        adjacent[u].add(v)
        adjacent[v].add(u)
    return adjacent


def adjacency_masks(n: int, edges: Sequence[Sequence[int]]) -> list[int]:
    """Bitmask of the neighbours of each vertex (undirected)."""
    masks = [0] * n
    for u, v in (e[:2] for e in edges):
        masks[u] |= 1 << v
        masks[v] |= 1 << u
    return masks


def bfs_order(neighbours: Sequence[Sequence[int]], root: int) -> tuple[list[int], list[int]]:
    """(parent, order): BFS parents (-1 at the root and unreached vertices) and the visiting order."""
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
    parent, order = bfs_order(adjacency(n, edges), root)
    size = [1] * n
    for v in reversed(order[1:]):
        size[parent[v]] += size[v]
    return size


def bfs_distances(adjacent: Sequence[Sequence[int]], source: int) -> list[float]:
    """Unweighted distances from `source` (INF where unreachable)."""
    dist: list[float] = [INF] * len(adjacent)
    dist[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in adjacent[u]:
            if dist[v] == INF:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


class DisjointSets:
    """Union-find with path halving."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> bool:
        """Join the sets of a and b; False if they were already one set."""
        a, b = self.find(a), self.find(b)
        self.parent[a] = b
        return a != b


def functional_cycles(successor: Sequence[int]) -> list[list[int]]:
    """The cycles of the functional graph i -> successor[i], each listed along the arrows."""
    state, found = [0] * len(successor), []  # 0 new, 1 on the current walk, 2 done
    for start in range(len(successor)):
        walk, v = [], start
        while not state[v]:
            state[v] = 1
            walk.append(v)
            v = successor[v]
        if state[v] == 1:
            found.append(walk[walk.index(v):])
        for u in walk:
            state[u] = 2
    return found


def longest_non_decreasing(values: Sequence[int]) -> int:
    """Length of the longest non-decreasing subsequence (patience sorting with bisect_right)."""
    tails: list[int] = []
    for x in values:
        k = bisect_right(tails, x)
        if k == len(tails):
            tails.append(x)
        else:
            tails[k] = x
    return len(tails)


# ---------------------------------------------------------------------------
# Exact solvers: bipartite matching, assignment, maximum flow


def max_bipartite_matching(left: int, right: int, adjacent: Sequence[Sequence[int]]) -> list[int]:
    """Kuhn's augmenting paths: match_of_right[r] = matched left vertex or -1."""
    match_of_right = [-1] * right

    def augment(u: int, seen: list[bool]) -> bool:
        for v in adjacent[u]:
            if not seen[v]:
                seen[v] = True
                if match_of_right[v] < 0 or augment(match_of_right[v], seen):
                    match_of_right[v] = u
                    return True
        return False

    for u in range(left):
        augment(u, [False] * right)
    return match_of_right


def min_vertex_cover(left: int, right: int, adjacent: Sequence[Sequence[int]]) -> tuple[list[int], list[int]]:
    """König: a minimum vertex cover (left vertices, right vertices) from a maximum matching."""
    match_of_right = max_bipartite_matching(left, right, adjacent)
    matched_left = set(match_of_right) - {-1}
    reached_left = [u not in matched_left for u in range(left)]  # alternating search from free left vertices
    reached_right = [False] * right
    queue = deque(u for u in range(left) if reached_left[u])
    while queue:
        u = queue.popleft()
        for v in adjacent[u]:
            if not reached_right[v]:
                reached_right[v] = True
                w = match_of_right[v]
                if w >= 0 and not reached_left[w]:
                    reached_left[w] = True
                    queue.append(w)
    return [u for u in range(left) if not reached_left[u]], [v for v in range(right) if reached_right[v]]


def min_cost_assignment(cost: Sequence[Sequence[int]]) -> list[int]:
    """Hungarian algorithm with potentials, O(n^3), exact on integers: the column of each row in a
    minimum-cost perfect assignment of a square matrix."""
    n = len(cost)
    row_potential, column_potential = [0] * (n + 1), [0] * (n + 1)
    row_of_column = [0] * (n + 1)  # 1-based row matched to each column; column 0 is a sentinel
    for row in range(1, n + 1):
        row_of_column[0] = row
        column = 0
        slack = [float("inf")] * (n + 1)
        previous = [0] * (n + 1)
        used = [False] * (n + 1)
        while row_of_column[column]:
            used[column] = True
            current, delta, next_column = row_of_column[column], float("inf"), 0
            for j in range(1, n + 1):
                if not used[j]:
                    reduced = cost[current - 1][j - 1] - row_potential[current] - column_potential[j]
                    if reduced < slack[j]:
                        slack[j], previous[j] = reduced, column
                    if slack[j] < delta:
                        delta, next_column = slack[j], j
            for j in range(n + 1):
                if used[j]:
                    row_potential[row_of_column[j]] += delta
                    column_potential[j] -= delta
                else:
                    slack[j] -= delta
            column = next_column
        while column:
            row_of_column[column] = row_of_column[previous[column]]
            column = previous[column]
    column_of_row = [0] * n
    for j in range(1, n + 1):
        column_of_row[row_of_column[j] - 1] = j - 1
    return column_of_row


def sparse_min_cost_assignment(arcs: Sequence[Sequence[tuple[int, int]]]) -> list[int]:
    """Min-cost perfect matching of left i to right j = arcs[i][k][0] (cost arcs[i][k][1] >= 0), n per side,
    by successive shortest augmenting paths (Dijkstra with potentials): fast where each row has few arcs.
    Raises ValueError if there is no perfect matching."""
    n = len(arcs)
    potential_left, potential_right = [0] * n, [0] * n
    left_of, right_of = [-1] * n, [-1] * n
    for source in range(n):
        dist = {("L", source): 0}  # Dijkstra over alternating paths, keyed by (side, vertex)
        parent: dict[int, int] = {}  # right vertex -> the left vertex it was reached from
        settled: set[tuple[str, int]] = set()
        heap = [(0, "L", source)]
        target = -1
        while heap:
            d, side, x = heapq.heappop(heap)
            if (side, x) in settled:
                continue
            settled.add((side, x))
            if side == "R":
                if left_of[x] < 0:
                    target = x
                    break
                u = left_of[x]
                if d < dist.get(("L", u), float("inf")):  # the matched edge has reduced cost 0
                    dist["L", u] = d
                    heapq.heappush(heap, (d, "L", u))
                continue
            for v, c in arcs[x]:
                if v == right_of[x]:
                    continue
                nd = d + c + potential_left[x] - potential_right[v]
                if nd < dist.get(("R", v), float("inf")):
                    dist["R", v], parent[v] = nd, x
                    heapq.heappush(heap, (nd, "R", v))
        if target < 0:
            raise ValueError("no perfect matching")
        reach = dist["R", target]
        for (side, x), d in dist.items():  # phi -= max(0, reach - d) keeps reduced costs >= 0
            if d < reach:
                if side == "L":
                    potential_left[x] -= reach - d
                else:
                    potential_right[x] -= reach - d
        v = target
        while True:
            u = parent[v]
            previous = right_of[u]
            right_of[u], left_of[v] = v, u
            if u == source:
                break
            v = previous
    return right_of


class FlowNetwork:
    """Dinic's maximum flow on integer capacities, with the source side of a minimum cut."""

    def __init__(self, size: int):
        self.arcs: list[list[int]] = [[] for _ in range(size)]
        self.head: list[int] = []
        self.capacity: list[int] = []

    def add_arc(self, tail: int, head: int, capacity: int) -> int:
        """Adds the arc and its residual twin; returns the arc's id (its residual capacity is
        self.capacity[id] once the flow has run)."""
        arc = len(self.head)
        self.arcs[tail].append(arc)
        self.head.append(head)
        self.capacity.append(capacity)
        self.arcs[head].append(len(self.head))
        self.head.append(tail)
        self.capacity.append(0)
        return arc

    def _levels(self, source: int) -> list[int]:
        level = [-1] * len(self.arcs)
        level[source] = 0
        queue = deque([source])
        while queue:
            u = queue.popleft()
            for arc in self.arcs[u]:
                v = self.head[arc]
                if self.capacity[arc] > 0 and level[v] < 0:
                    level[v] = level[u] + 1
                    queue.append(v)
        return level

    def max_flow(self, source: int, sink: int) -> int:
        """Blocking flows along BFS levels, one augmenting path at a time (current-arc pointers)."""
        total = 0
        arcs, head, capacity = self.arcs, self.head, self.capacity
        while True:
            level = self._levels(source)
            if level[sink] < 0:
                return total
            cursor = [0] * len(arcs)
            path: list[int] = []
            u = source
            while True:
                if u == sink:
                    pushed = min(capacity[arc] for arc in path)
                    for arc in path:
                        capacity[arc] -= pushed
                        capacity[arc ^ 1] += pushed
                    total += pushed
                    path, u = [], source
                    continue
                while cursor[u] < len(arcs[u]):
                    arc = arcs[u][cursor[u]]
                    if capacity[arc] > 0 and level[head[arc]] == level[u] + 1:
                        break
                    cursor[u] += 1
                else:
                    if not path:
                        break
                    level[u] = -1
                    arc = path.pop()
                    u = head[arc ^ 1]
                    cursor[u] += 1
                    continue
                path.append(arcs[u][cursor[u]])
                u = head[path[-1]]

    def source_side(self, source: int) -> list[bool]:
        """After max_flow: the vertices still reachable from the source, one side of a minimum cut."""
        return [level >= 0 for level in self._levels(source)]
