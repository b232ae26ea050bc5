"""Targeted tests for the combinatorics batch A: exact counters against brute force, reward rules."""

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem

from rlve_jax.gym.environments.almost_complete_graph_cycle_counting import almost_complete_cycles
from rlve_jax.gym.environments.and_or_sequence_counting import count_and_or_sequences
from rlve_jax.gym.environments.binary_tree_leaf_num_expectation import expected_leaves
from rlve_jax.gym.environments.bit_and_zero_path_counting import count_paths
from rlve_jax.gym.environments.bit_equation_counting import count_true, random_formula
from rlve_jax.gym.environments.bitwise_operation_sequence_counting import count_operator_choices
from rlve_jax.gym.environments.bounded_adjacency_difference_permutation_counting import count_bounded_permutations
from rlve_jax.gym.environments.bounded_interval_intersection import count_subsets
from rlve_jax.gym.environments.bubble_swap_lower_bound_permutation_counting import count_greater_valid
from rlve_jax.gym.environments.cantor_expansion import count_smaller
from rlve_jax.gym.environments.card_coloring_counting import count_orbits
from rlve_jax.gym.environments.cinema import seating_probability
from rlve_jax.gym.environments.combination_odd_subsequence_counting import count_odd_chains
from rlve_jax.gym.environments.concatenation_partition_counting_sum import partition_sum
from rlve_jax.gym.environments.cube_fixed_local_maximum_counting import exactly_k_maxima_probability
from rlve_jax.gym.environments.decreasing_digit_counting import count_increasing_numbers
from rlve_jax.gym.environments.digit_lis_counting import count_up_to
from rlve_jax.gym.environments.distinct_edge_colored_complete_graph_counting import count_edge_colorings
from rlve_jax.gym.environments.divisor_flip_expectation import expected_presses_times_factorial
from rlve_jax.gym.environments.double_cross_counting import count_double_crosses
from rlve_jax.gym.environments.double_palindromic_string_counting import count_double_palindromes
from rlve_jax.gym.environments.emperor_worries import min_medal_types
from rlve_jax.gym.environments.grade_ranking_counting import count_grade_tables
from rlve_jax.gym.environments.grid_coloring_counting import count_colorings
from rlve_jax.gym.environments.grid_local_minimum_counting import count_exact_minima, local_minima
from rlve_jax.gym.environments.heap_counting import count_heaps
from rlve_jax.gym.environments.individual_sum_bounded_sequence_counting import count_sequences
from rlve_jax.gym.environments.inversion_pair_k_counting import count_with_inversions
from rlve_jax.gym.environments.kidding_me import count_matrices
from rlve_jax.gym.environments.kth_binary_tree import tree_string
from rlve_jax.gym.environments.kth_semi_balanced_bracket_sequence import count_from, kth_string


def answer(text: str) -> str:
    return f"<answer>{text}</answer>"


def reward(name: str, data: dict, text: str) -> float:
    env = registry.make(name)
    problem = Problem(name, 0, 0, "prompt", {}, data, env.pass_threshold(data))
    return env.verify(problem, answer(text), ANSWER_TAGS).reward


def inversions(p) -> int:
    return sum(p[i] > p[j] for i in range(len(p)) for j in range(i + 1, len(p)))


# ---------------------------------------------------------------------------
# Exact counters against brute force on small instances


def test_almost_complete_cycles():
    for n in range(4, 8):
        edges = {frozenset(e) for e in itertools.combinations(range(1, n + 1), 2)} - {frozenset((1, n))}
        cycles = set()
        for k in range(3, n + 1):
            for vertices in itertools.permutations(range(1, n + 1), k):
                cycle = [frozenset((vertices[i], vertices[(i + 1) % k])) for i in range(k)]
                if all(e in edges for e in cycle):
                    cycles.add(frozenset(cycle))
        assert almost_complete_cycles(n) == len(cycles)


def test_and_or_sequences():
    rng = random.Random(0)
    for _ in range(20):
        n, m = rng.randint(1, 3), rng.randint(1, 3)
        a = [rng.randrange(2 ** m) for _ in range(n)]
        brute = sum(all((a[i] & b[i]) <= (a[i + 1] & b[i + 1]) and (a[i] | b[i]) >= (a[i + 1] | b[i + 1])
                        for i in range(n - 1)) for b in itertools.product(range(2 ** m), repeat=n))
        assert count_and_or_sequences(a, m) == brute


def trees(n):
    if n == 0:
        yield None
        return
    for left in range(n):
        for lt in trees(left):
            for rt in trees(n - 1 - left):
                yield (lt, rt)


def leaves(tree) -> int:
    if tree is None:
        return 0
    return 1 if tree == (None, None) else leaves(tree[0]) + leaves(tree[1])


def test_expected_leaves():
    for n in range(1, 9):
        all_trees = list(trees(n))
        assert expected_leaves(n) == Fraction(sum(map(leaves, all_trees)), len(all_trees))


def test_bit_and_zero_paths():
    for target in range(1, 40):
        paths = [0] * (target + 1)
        for source in range(target):
            paths = [0] * (target + 1)
            paths[source] = 1
            for t in range(source + 1, target + 1):
                paths[t] = sum(paths[s] for s in range(source, t) if s & t == 0)
            assert count_paths(source, target) == paths[target] % 10000


def test_bit_equation_and_operator_sequences():
    rng = random.Random(1)

    def evaluate(node, values):
        if "var" in node:
            return values[node["var"]]
        a, b = evaluate(node["left"], values), evaluate(node["right"], values)
        return {"&": a & b, "|": a | b, "^": a ^ b}[node["op"]]

    for n in range(1, 7):
        names = [f"x{i}" for i in range(n)]
        formula = random_formula(names, rng)
        brute = sum(evaluate(formula, dict(zip(names, bits))) for bits in itertools.product((0, 1), repeat=n))
        assert count_true(formula)[1] == brute
    for _ in range(20):
        values = [rng.randrange(8) for _ in range(rng.randint(2, 6))]
        target = rng.randrange(8)
        brute = 0
        for ops in itertools.product("&|", repeat=len(values) - 1):
            result = values[0]
            for op, v in zip(ops, values[1:]):
                result = result & v if op == "&" else result | v
            brute += result == target
        assert count_operator_choices(values, target) == brute


def test_bounded_adjacency_permutations():
    for n in range(2, 8):
        for k in range(1, 5):
            brute = sum(all(abs(p[i] - p[i + 1]) <= k for i in range(n - 1)) for p in itertools.permutations(range(n)))
            assert count_bounded_permutations(n, k) == brute


def test_bounded_interval_intersection():
    rng = random.Random(2)
    for _ in range(30):
        n = rng.randint(1, 6)
        intervals = [sorted((rng.randint(0, n), rng.randint(0, n))) for _ in range(n)]
        k = rng.randint(1, n)
        brute = sum(min(intervals[i][1] for i in s) - max(intervals[i][0] for i in s) >= k
                    for size in range(1, n + 1) for s in itertools.combinations(range(n), size))
        assert count_subsets(intervals, k) == brute


def test_bubble_swap_lower_bound():
    for n in range(1, 7):
        perms = list(itertools.permutations(range(1, n + 1)))
        good = [p for p in perms if 2 * inversions(p) == sum(abs(i + 1 - v) for i, v in enumerate(p))]
        for p in perms[:: max(1, len(perms) // 40)]:
            assert count_greater_valid(list(p)) == sum(q > p for q in good)


def test_cantor_expansion():
    rng = random.Random(3)
    for _ in range(20):
        seq = [rng.randint(1, 3) for _ in range(rng.randint(1, 6))]
        assert count_smaller(seq) == sum(q < tuple(seq) for q in set(itertools.permutations(seq)))


def test_card_coloring_matches_burnside():
    rng = random.Random(4)
    for _ in range(15):
        n = rng.randint(3, 5)
        cuts = sorted((rng.randint(0, n), rng.randint(0, n)))
        counts = [cuts[0], cuts[1] - cuts[0], n - cuts[1]]
        shuffles = [rng.sample(range(1, n + 1), n) for _ in range(rng.randint(0, 3))]
        group = {tuple(range(n))}
        while True:  # closure of the generated group, permutations as position maps
            grown = group | {tuple(s[g[i]] - 1 for i in range(n)) for g in group for s in shuffles}
            if grown == group:
                break
            group = grown
        colorings = set(itertools.permutations("R" * counts[0] + "G" * counts[1] + "B" * counts[2]))
        fixed = 0
        for g in group:
            for c in colorings:
                moved = [None] * n
                for i in range(n):
                    moved[g[i]] = c[i]
                fixed += tuple(moved) == c
        assert count_orbits(counts, shuffles) * len(group) == fixed


def test_catalan_permutations_and_heaps():
    for n in range(1, 5):
        brute = sum(all(p[2 * i] < p[2 * i + 2] and p[2 * i + 1] < p[2 * i + 3] for i in range(n - 1))
                    and all(p[2 * i] < p[2 * i + 1] for i in range(n))
                    for p in itertools.permutations(range(2 * n)))
        assert brute == math.comb(2 * n, n) // (n + 1)
    for n in range(1, 8):
        brute = sum(all(p[i - 1] > p[i // 2 - 1] for i in range(2, n + 1)) for p in itertools.permutations(range(n)))
        assert count_heaps(n) == brute


def test_cinema_probability():
    for k in range(2, 6):
        for n in range(2, k + 1):
            seated = 0
            for choices in itertools.product(range(k), repeat=n):
                taken = [False] * k
                ok = True
                for c in choices:
                    while c < k and taken[c]:
                        c += 1
                    if c == k:
                        ok = False
                        break
                    taken[c] = True
                seated += ok
            assert seating_probability(n, k) == Fraction(seated, k ** n)


def test_combination_odd_chains():
    rng = random.Random(5)
    for _ in range(10):
        values = rng.sample(range(1, 16), 7)
        brute = sum(all(math.comb(s[i], s[i + 1]) % 2 for i in range(len(s) - 1))
                    for size in range(2, 8) for s in itertools.combinations(values, size))
        assert count_odd_chains(values) == brute


def test_concatenation_partition_sum():
    rng = random.Random(6)
    for _ in range(10):
        digits = "".join(str(rng.randint(0, 9)) for _ in range(rng.randint(1, 4)))
        m, mod = rng.randint(1, 5), rng.randint(2, 10 ** 4)
        f = [1]
        for x in range(1, 10 ** len(digits)):
            f.append(sum(f[x - j] for j in range(1, m + 1) if x - j >= 0))
        brute = 0
        for mask in range(2 ** (len(digits) - 1)):
            pieces, start = [], 0
            for i in range(1, len(digits)):
                if mask >> (i - 1) & 1:
                    pieces.append(digits[start:i])
                    start = i
            pieces.append(digits[start:])
            brute += f[sum(map(int, pieces))]
        assert partition_sum(digits, m, mod) == brute % mod


def test_cube_maxima_probability_2x2x2():
    cells = list(itertools.product(range(2), repeat=3))
    crosses = [[j for j, o in enumerate(cells) if o != c and any(a == b for a, b in zip(c, o))] for c in cells]
    values = np.array(list(itertools.permutations(range(8))))
    maxima = sum(np.all(values[:, [i]] > values[:, cross], axis=1) for i, cross in enumerate(crosses))
    hits = Counter(maxima.tolist())
    for k in range(0, 3):
        assert exactly_k_maxima_probability(2, 2, 2, k) == Fraction(hits[k], math.factorial(8))


def test_increasing_digit_numbers():
    for k in (2, 3):
        for w in range(k + 1, k * 2 ** k + 1):
            brute = 0
            for r in range(2 ** k, 2 ** w):
                digits = []
                while r:
                    digits.append(r % 2 ** k)
                    r //= 2 ** k
                digits.reverse()
                brute += all(a < b for a, b in zip(digits, digits[1:]))
            assert count_increasing_numbers(k, w) == brute
            if w > 9:
                break


def test_digit_lis():
    def lis(x):
        digits, best = str(x), []
        for d in digits:
            best.append(1 + max([best[i] for i in range(len(best)) if digits[i] < d], default=0))
        return max(best)

    table = [lis(x) for x in range(3000)]
    rng = random.Random(7)
    for _ in range(30):
        bound, k = rng.randint(-1, 2999), rng.randint(1, 4)
        assert count_up_to(bound, k) == sum(1 for x in range(bound + 1) if table[x] == k)


def test_edge_colorings_up_to_isomorphism():
    for n in (3, 4):
        edges = list(itertools.combinations(range(n), 2))
        for colors in (2, 3):
            classes = set()
            for coloring in itertools.product(range(colors), repeat=len(edges)):
                color = dict(zip(edges, coloring))
                classes.add(min(tuple(color[tuple(sorted((p[a], p[b])))] for a, b in edges)
                                for p in itertools.permutations(range(n))))
            assert count_edge_colorings(n, colors) == len(classes)


def solve_linear(rows: list[list[Fraction]]) -> list[Fraction]:
    """Gauss-Jordan elimination on an augmented, non-singular system."""
    size = len(rows)
    for col in range(size):
        pivot = next(r for r in range(col, size) if rows[r][col])
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rows[col] = [x / rows[col][col] for x in rows[col]]
        for r in range(size):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col])]
    return [row[-1] for row in rows]


def test_divisor_flip_expectation_against_markov_chain():
    for n in (3, 4):
        masks = [sum(1 << (j - 1) for j in range(1, i + 1) if i % j == 0) for i in range(1, n + 1)]
        need = [min(bin(sub).count("1") for sub in range(2 ** n) if toggled(masks, sub) == s) for s in range(2 ** n)]
        for k in range(0, n + 1):
            rows = []  # E[s] = need[s] if need[s] <= k else 1 + mean over switches of E[s ^ mask]
            for s in range(2 ** n):
                row = [Fraction(0)] * (2 ** n + 1)
                row[s] += 1
                if need[s] <= k:
                    row[-1] = Fraction(need[s])
                else:
                    for mask in masks:
                        row[s ^ mask] -= Fraction(1, n)
                    row[-1] = Fraction(1)
                rows.append(row)
            expected = solve_linear(rows)
            for s in range(2 ** n):
                states = [s >> i & 1 for i in range(n)]
                assert expected_presses_times_factorial(states, k) == expected[s] * math.factorial(n)


def toggled(masks: list[int], subset: int) -> int:
    """Light pattern toggled by pressing the switches in `subset`."""
    result = 0
    for i, mask in enumerate(masks):
        if subset >> i & 1:
            result ^= mask
    return result


def test_double_crosses():
    rng = random.Random(8)
    for _ in range(15):
        n, m = rng.randint(5, 7), rng.randint(5, 7)
        grid = ["".join("1" if rng.random() < 0.85 else "0" for _ in range(m)) for _ in range(n)]
        one = lambda r, c: 0 <= r < n and 0 <= c < m and grid[r][c] == "1"  # noqa: E731
        brute = 0
        for c in range(m):
            for up, r1, r2, down in itertools.combinations(range(n), 4):
                if r2 - r1 < 2 or not all(one(r, c) for r in range(up, down + 1)):
                    continue
                for a in range(1, m):
                    for b in range(a + 1, m):
                        brute += all(one(r1, c + d) and one(r1, c - d) for d in range(1, a + 1)) and all(
                            one(r2, c + d) and one(r2, c - d) for d in range(1, b + 1))
        assert count_double_crosses(grid) == brute


def test_double_palindromes():
    for c in (2, 3):
        for n in range(2, 8):
            found = set()
            for length in range(2, n + 1):
                for w in itertools.product(range(c), repeat=length):
                    if any(w[:i] == w[:i][::-1] and w[i:] == w[i:][::-1] for i in range(1, length)):
                        found.add(w)
            assert count_double_palindromes(n, c) == len(found)


def test_emperor_worries_odd_cycle_bound():
    rng = random.Random(9)
    for _ in range(200):
        needs = [rng.randint(1, 12) for _ in range(rng.randint(2, 9))]
        n = len(needs)
        bound = max(needs[i] + needs[(i + 1) % n] for i in range(n))
        if n % 2:
            bound = max(bound, -(-sum(needs) // (n // 2)))
        assert min_medal_types(needs) == bound


def test_grade_tables():
    rng = random.Random(10)
    for _ in range(6):
        n, m = rng.randint(2, 3), 2
        bounds = [rng.randint(1, 3) for _ in range(m)]
        tables = list(itertools.product(*[itertools.product(range(1, u + 1), repeat=n) for u in bounds]))
        for beaten in itertools.product(range(n), repeat=m):
            for k in range(n):
                brute = sum(all(sum(col[s] > col[0] for s in range(1, n)) == r for col, r in zip(t, beaten))
                            and sum(all(col[s] <= col[0] for col in t) for s in range(1, n)) == k for t in tables)
                assert count_grade_tables(n, bounds, list(beaten), k) == brute


def test_grid_coloring():
    for rows, cols, pieces in [(2, 2, [1, 1]), (2, 3, [2, 1]), (3, 3, [2, 2]), (3, 3, [1, 1, 1]), (2, 3, [3])]:
        brute = 0
        cells = list(itertools.product(range(rows), range(cols)))
        for chosen in itertools.combinations(cells, sum(pieces)):
            for colouring in set(itertools.permutations([c for c, x in enumerate(pieces) for _ in range(x)])):
                brute += all(colouring[i] == colouring[j] or (a[0] != b[0] and a[1] != b[1])
                             for (i, a), (j, b) in itertools.combinations(enumerate(chosen), 2))
        assert count_colorings(rows, cols, pieces) == brute


def test_grid_local_minima():
    rng = random.Random(11)
    for n, m in [(2, 2), (2, 3), (3, 2)]:
        order = list(range(n * m))
        rng.shuffle(order)
        marked = local_minima([order[r * m:(r + 1) * m] for r in range(n)])
        brute = sum(local_minima([p[r * m:(r + 1) * m] for r in range(n)]) == marked
                    for p in itertools.permutations(range(n * m)))
        assert count_exact_minima(n, m, marked) == brute


def test_small_closed_forms():
    for n in range(2, 12):
        for k in range(2, n + 1):
            for m in range(1, (n - 1) // (k - 1) + 1):
                brute = sum(max(0, n - sum(rest)) for rest in itertools.product(range(1, m + 1), repeat=k - 1))
                assert count_sequences(n, k, m, 10 ** 9) == brute % 10 ** 9
    for n in range(1, 7):
        counts = Counter(inversions(p) for p in itertools.permutations(range(n)))
        for k in range(n * (n - 1) // 2 + 1):
            assert count_with_inversions(n, k, 1000) == counts[k] % 1000


def test_kidding_me():
    for n in (2, 3):
        for m in (2, 3):
            rows = list(itertools.combinations(range(m + 1), m))  # strictly increasing rows
            brute = sum(all(x[i][j] < x[i - 1][j + 1] for i in range(1, n) for j in range(m - 1))
                        for x in itertools.product(rows, repeat=n))
            assert count_matrices(n, m) == brute


def test_kth_binary_tree_numbering():
    assert tree_string(1, 0) == "X"
    assert tree_string(2, 0) == "X(X)" and tree_string(2, 1) == "(X)X"
    # Index 20 in the 'Trees Made to Order' numbering: 1 + 1 + 2 + 5 + 9 before it -> size 4, rank 20 - 9.
    assert tree_string(4, 20 - 9) == "((X)X(X))X"


def test_kth_semi_balanced():
    for n in (1, 3, 5, 7):
        valid = []
        for s in itertools.product("()", repeat=n):
            for i in range(n):
                t = s[:i] + s[i + 1:]
                depth = list(itertools.accumulate(1 if ch == "(" else -1 for ch in t))
                if not t or (min(depth) >= 0 and depth[-1] == 0):
                    valid.append("".join(s))
                    break
        assert count_from(n, 0, 0) == len(valid)
        assert [kth_string(n, k) for k in range(1, len(valid) + 1)] == sorted(valid)


# ---------------------------------------------------------------------------
# Reward rules


def test_mod_rule():
    data = {"N": 5, "MOD": 1000, "gold": 12}
    assert reward("AlmostCompleteGraphCycleCounting", data, "12") == 1.0
    assert reward("AlmostCompleteGraphCycleCounting", data, "13") == 0.0
    assert reward("AlmostCompleteGraphCycleCounting", data, "1012") == -0.5  # congruent but out of range
    assert reward("AlmostCompleteGraphCycleCounting", data, "-1") == -0.5
    assert reward("AlmostCompleteGraphCycleCounting", data, "twelve") == -1.0


def test_ratio_rule():
    data = {"N": 3, "K": 2, "gold": 10}
    name = "BoundedAdjacencyDifference_Permutation_Counting"
    assert reward(name, data, "10") == 1.0
    assert reward(name, data, "8") == pytest.approx(0.8 ** 10)
    assert reward(name, data, "20") == pytest.approx(0.5 ** 10)
    assert reward(name, data, "0") == 0.0
    assert reward(name, data, "-3") == -1.0
    assert reward(name, {"N": 3, "K": 2, "gold": 0}, "0") == 1.0
    assert reward("DoubleCrossCounting", {"gold": 10}, "5") == pytest.approx(0.5 ** 3)
    assert reward("CardColoringCounting", {"gold": 3}, "0") == -1.0  # "<= 0 -> -1"
    assert reward("DoublePalindromicStringCounting", {"gold": 3}, "0") == -1.0
    assert reward("BitEquationCounting", {"N": 3, "gold": 4}, "9") == -0.5  # outside [0, 2^N]
    assert reward("BitEquationCounting", {"N": 3, "gold": 4}, "2") == pytest.approx(0.5 ** 10)


def test_fraction_answers():
    assert reward("BinaryTreeLeafNumExpectation", {"N": 3}, "6/5") == 1.0
    assert reward("BinaryTreeLeafNumExpectation", {"N": 3}, "12/10") == 1.0  # reduced by the checker
    assert reward("BinaryTreeLeafNumExpectation", {"N": 3}, "1/1") == 0.0
    assert reward("BinaryTreeLeafNumExpectation", {"N": 3}, "0/5") == -1.0
    assert reward("BinaryTreeLeafNumExpectation", {"N": 3}, "1.2") == -1.0
    assert seating_probability(2, 3) == Fraction(8, 9)  # (3 + 1 - 2) * 4 / 9
    assert reward("Cinema", {"N": 2, "K": 3}, "8 9") == 1.0
    assert reward("Cinema", {"N": 2, "K": 3}, "16 18") == 0.0  # must be reduced
    assert reward("Cinema", {"N": 2, "K": 3}, "8/9") == -1.0


def test_different_color_pairing():
    data = {"N": 6, "M": 3, "counts": [2, 2, 2]}
    assert reward("DifferentColorPairing", data, "1 2\n2 3\n3 1") == 1.0
    assert reward("DifferentColorPairing", data, "1 2\n1 2\n3 1") == pytest.approx((1 / 3) ** 10)
    assert reward("DifferentColorPairing", data, "1 2\n2 3\n1 3") == 1.0
    assert reward("DifferentColorPairing", data, "1 2\n2 3\n2 1") == pytest.approx((1 / 3) ** 10)
    assert reward("DifferentColorPairing", data, "1 1\n2 3\n2 3") == -0.5  # a pair of one colour
    assert reward("DifferentColorPairing", data, "1 4\n2 3\n2 3") == -0.5  # no colour 4
    assert reward("DifferentColorPairing", data, "1 2\n2 3") == -1.0  # wrong number of lines


def test_distinct_array_permutation():
    data = {"N": 3, "A": [0, 1, 2]}
    assert reward("DistinctArrayPermutation", data, "1 2 0") == 1.0
    assert reward("DistinctArrayPermutation", data, "0 2 1") == 0.0  # index 1 keeps its value
    assert reward("DistinctArrayPermutation", data, "1 2 3") == -0.5
    assert reward("DistinctArrayPermutation", data, "") == -0.5


def test_k_partition():
    data = {"M": 2, "K": 2, "T": 5, "numbers": [1, 4, 2, 3]}
    assert reward("KPartition", data, "4 1\n3 2") == 1.0
    assert reward("KPartition", data, "1 2\n3 4") == 0.0  # same multiset, unequal sums
    assert reward("KPartition", data, "1 4\n2 2") == -0.5  # not the multiset
    assert reward("KPartition", data, "1 4 2 3") == -0.5  # wrong shape


def test_string_answers():
    assert reward("Kth_BinaryTree", {"index": 20, "reference": "((X)X(X))X"}, "((X)X(X))X") == 1.0
    assert reward("Kth_BinaryTree", {"index": 20, "reference": "((X)X(X))X"}, "(X)X") == 0.0
    assert reward("Kth_BinaryTree", {"index": 20, "reference": "((X)X(X))X"}, "((X)X(X)) X") == -0.5
    data = {"N": 5, "K": 1, "reference": "((())"}
    assert reward("Kth_SemiBalancedBracketSequence", data, "((())") == 1.0
    assert reward("Kth_SemiBalancedBracketSequence", data, "(()))") == pytest.approx((4 / 5) ** 5)
    assert reward("Kth_SemiBalancedBracketSequence", data, "(())") == -0.5
    assert reward("Kth_SemiBalancedBracketSequence", data, "((()a") == -0.5
    assert reward("EmperorWorries", {"A": [1, 2, 3], "reference": "6"}, "6") == 1.0
    assert reward("EmperorWorries", {"A": [1, 2, 3], "reference": "6"}, "5") == 0.0
