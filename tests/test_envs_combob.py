"""Targeted tests for combinatorics batch B: reward rules with structure and solvers against brute force."""

import random
from fractions import Fraction
from functools import reduce
from itertools import combinations, permutations, product
from math import comb, factorial

import pytest

from rlve_jax.gym.environments._common import random_tree
from rlve_jax.gym.environments._numbers import count_under_exact_maxima
from rlve_jax.gym.environments.ldstwo_counting import count_321_avoiding_with_fixed_point
from rlve_jax.gym.environments.maximum_subsequence_num import distinct_subsequences, greedy_extension
from rlve_jax.gym.environments.money_charging_game import MOD as MONEY_MOD, precedence_probability
from rlve_jax.gym.environments.monochrome_block_counting import tallest_tower_colourings
from rlve_jax.gym.environments.no_adjacent_girl_counting import line_ups
from rlve_jax.gym.environments.no_double_triple_counting import free_subsets
from rlve_jax.gym.environments.number_partition_counting import partitions_into_parts
from rlve_jax.gym.environments.pair_more_one_counting import pairs_with_more_ones
from rlve_jax.gym.environments.random_range_max_expectation import scaled_expectations
from rlve_jax.gym.environments.range_shrinking_sequence_counting import shrinking_sequences
from rlve_jax.gym.environments.scc_sequence_counting import scc_sequence_counts
from rlve_jax.gym.environments.segment_tree_sorting_counting import sorting_sequences
from rlve_jax.gym.environments.xor_equation_counting import tuples_in_range
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS


def score(name: str, data: dict, answer: str) -> float:
    """Reward of an answer text through the public verifier (format errors included)."""
    env = registry.make(name)
    problem = env.generate(0, 0)
    problem = type(problem)(**{**problem.__dict__, "data": data})
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


# -- counting reward rules ----------------------------------------------------------------------


def test_counting_partial_credit_and_sign_rules():
    data = {"A": 3, "B": 3, "gold": 4}
    assert score("MonochromeBlockCounting", data, "4") == 1.0
    assert score("MonochromeBlockCounting", data, "2") == pytest.approx(0.5 ** 10)
    assert score("MonochromeBlockCounting", data, "8") == pytest.approx(0.5 ** 10)
    assert score("MonochromeBlockCounting", data, "0") == -1.0  # "≤0 → -1"
    assert score("MonochromeBlockCounting", data, "-4") == -1.0
    nand = {"K": 2, "numbers": [1, 2, 3], "L": 0, "R": 3, "gold": 0}
    assert score("NANDResultCounting", nand, "0") == 1.0  # ref = 0: 1 iff the answer is 0
    assert score("NANDResultCounting", nand, "1") == 0.0
    assert score("NANDResultCounting", {**nand, "gold": 3}, "0") == 0.0
    assert score("NANDResultCounting", nand, "-1") == -1.0


def test_modular_answers_out_of_range_are_invalid():
    data = {"N": 3, "M": 2, "mod": 3, "gold": 0}
    assert score("SameAdjacencyCounting", data, "0") == 1.0
    assert score("SameAdjacencyCounting", data, "1") == 0.0
    assert score("SameAdjacencyCounting", data, "3") == -0.5
    assert score("SameAdjacencyCounting", data, "-1") == -0.5
    assert score("SameAdjacencyCounting", data, "zero") == -1.0


# -- constructive answers -----------------------------------------------------------------------


def test_main_diagonal_partial_credit():
    data = {"N": 3, "matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 0]]}
    assert score("MatrixPermutation_MainDiagonalOne", data, "0 1 2\n0 1 2") == pytest.approx((2 / 3) ** 5)
    assert score("MatrixPermutation_MainDiagonalOne", data, "0 1 1\n0 1 2") == -0.5
    assert score("MatrixPermutation_MainDiagonalOne", data, "0 1 2") == -1.0


def test_matrix_equivalence_fraction_of_cells():
    data = {"N": 2, "M": 2, "A": [[1, 0], [0, 0]], "B": [[0, 0], [0, 1]]}
    assert score("MatrixPermutationEquivalence", data, "1 0\n1 0") == 1.0
    assert score("MatrixPermutationEquivalence", data, "0 1\n0 1") == pytest.approx((2 / 4) ** 5)
    assert score("MatrixPermutationEquivalence", data, "0 1\n0 2") == -0.5


def test_subsequence_optimum_beats_other_extensions():
    sequence, n, k = [0, 1, 0], 2, 3
    gold = distinct_subsequences(sequence + greedy_extension(sequence, n, k))
    assert gold == max(distinct_subsequences(sequence + list(tail)) for tail in product(range(k), repeat=n))
    data = {"N": n, "K": k, "sequence": sequence, "gold": gold}
    assert score("Maximum_SubsequenceNum", data, " ".join(map(str, greedy_extension(sequence, n, k)))) == 1.0
    worse = distinct_subsequences(sequence + [0, 0])
    assert score("Maximum_SubsequenceNum", data, "0 0") == pytest.approx((worse / gold) ** 5)
    assert score("Maximum_SubsequenceNum", data, "0 3") == -0.5
    assert score("Maximum_SubsequenceNum", data, "0") == -0.5


def test_round_robin_rules():
    data = {"N": 3, "targets": [6, 1, 1]}
    assert score("RoundRobin", data, "022\n001\n010") == 1.0
    assert score("RoundRobin", data, "022\n002\n000") == pytest.approx((1 / 3) ** 5)  # only player 0 right
    assert score("RoundRobin", data, "122\n001\n010") == -0.5  # diagonal
    assert score("RoundRobin", data, "022\n002\n010") == -0.5  # A[1][2] + A[2][1] != 2
    assert score("RoundRobin", data, "023\n001\n010") == -1.0
    assert score("RoundRobin", data, "022\n001") == -1.0


def test_set_cover_rules():
    data = {"N": 4, "sets": [[0, 1], [2, 3], [1, 2], [3]]}
    assert score("SetCover", data, "0 1") == 1.0
    assert score("SetCover", data, "0 3") == pytest.approx((3 / 4) ** 10)
    assert score("SetCover", data, "0 2") == -0.5  # item 1 twice
    assert score("SetCover", data, "0 0 1") == -0.5
    assert score("SetCover", data, "4") == -0.5


def test_subset_sum_rules():
    data = {"values": [2, 2, 5], "target": 7}
    assert score("SubsetSum", data, "1 2") == 1.0
    assert score("SubsetSum", data, "0 1") == 0.0
    assert score("SubsetSum", data, "2 2") == -0.5
    assert score("SubsetSum", data, "3") == -0.5


def test_quad_magic_items_partial_and_shape():
    data = {"values": [1, 3, 10, 11, 5], "gold": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]}
    assert score("QuadMagicItems", data, "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n0 0 0 0") == 1.0
    assert score("QuadMagicItems", data, "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n0 0 0 1") == pytest.approx(0.8 ** 10)
    assert score("QuadMagicItems", data, "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1") == -1.0
    assert score("QuadMagicItems", data, "1 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n0 0 0 0") == -1.0


def test_random_range_max_rules():
    data = {"values": [0, 1], "Q": 1, "gold": scaled_expectations([0, 1], 1)}
    assert data["gold"] == [1, 3]  # ops [1,1], [2,2], [1,2] leave 0, 0, 1 at position 1 and 1 everywhere at 2
    assert score("RandomRangeMaxExpectation", data, "1 3") == 1.0
    assert score("RandomRangeMaxExpectation", data, "1 4") == pytest.approx(0.5 ** 3)
    assert score("RandomRangeMaxExpectation", data, "1") == -0.5


def test_polya_answer_inside_tags_is_scored():
    """Known bug 1 of the original (raw output parsed): the tagged answer must be accepted."""
    data = {"counts": [1, 1], "D": 1, "steps": [1, 2], "colours": [0, 0], "reference": "1/3"}
    assert score("PolyaModel", data, "1/3") == 1.0
    assert score("PolyaModel", data, " 1 / 3 ") == 1.0
    assert score("PolyaModel", data, "2/6") == 0.0  # not in lowest terms
    assert score("PolyaModel", data, "1/0") == -1.0
    assert score("PolyaModel", data, "0.333") == -1.0


# -- solvers against brute force on tiny instances ------------------------------------------------


def test_ldstwo_matches_enumeration():
    for n in range(1, 6):
        for x, y in product(range(1, n + 1), repeat=2):
            expected = sum(p[x - 1] == y and not any(p[i] > p[j] > p[k] for i, j, k in combinations(range(n), 3))
                           for p in permutations(range(1, n + 1)))
            assert count_321_avoiding_with_fixed_point(n, x, y) == expected


def test_scc_sequences_match_exhaustive_search():
    """N = 3 and 4 against every order of edge insertions (values found by exhaustive search)."""
    assert scc_sequence_counts(3, 10 ** 9) == [1, 2, 4, 7, 7, 7]
    assert scc_sequence_counts(4, 10 ** 9) == [1, 2, 4, 9, 20, 39, 64, 89, 114, 114, 114, 114]


def test_exact_maxima_counting_matches_enumeration():
    rng = random.Random(0)
    for _ in range(60):
        n, a = rng.randint(1, 5), rng.randint(1, 3)
        constraints = []
        for _ in range(rng.randint(1, 3)):
            left, right = sorted((rng.randint(1, n), rng.randint(1, n)))
            constraints.append((left, right, rng.randint(1, a)))
        expected = sum(all(max(h[l - 1:r]) == v for l, r, v in constraints)
                       for h in product(range(1, a + 1), repeat=n))
        regions = [(list(range(l - 1, r)), v) for l, r, v in constraints]
        assert count_under_exact_maxima([1] * n, regions, a) == expected


def test_money_charging_game_matches_enumeration():
    rng = random.Random(1)
    for _ in range(10):
        n = rng.randint(1, 4)
        weights = [[rng.randint(1, 3) for _ in range(3)] for _ in range(n)]
        edges = random_tree(n, rng, "shuffle")
        total = Fraction(0)
        for drawn in product((1, 2, 3), repeat=n):
            chance = Fraction(1)
            for node, w in enumerate(drawn):
                chance *= Fraction(weights[node][w - 1], sum(weights[node]))
            for order in permutations(range(n)):
                rank = {v: i for i, v in enumerate(order)}
                if all(rank[u] < rank[v] for u, v in edges):
                    remaining, p = sum(drawn), chance
                    for v in order:
                        p, remaining = p * Fraction(drawn[v], remaining), remaining - drawn[v]
                    total += p
        expected = total.numerator * pow(total.denominator, -1, MONEY_MOD) % MONEY_MOD
        assert precedence_probability(weights, edges) == expected


def test_range_shrinking_matches_enumeration():
    def valid(a):
        for i in range(2, len(a)):
            earlier = a[:i - 1]
            low = max((x for x in earlier if x <= a[i - 1]), default=0)
            high = min((x for x in earlier if x >= a[i - 1]), default=10 ** 9)
            if not low <= a[i] <= high:
                return False
        return True

    rng = random.Random(2)
    for _ in range(30):
        bounds = [rng.randint(1, 4) for _ in range(rng.randint(1, 5))]
        assert shrinking_sequences(bounds) == sum(valid(a) for a in product(*[range(1, b + 1) for b in bounds]))


def test_random_range_max_matches_enumeration():
    values, q = [2, 0, 1], 2
    ops = [(l, r) for l in range(3) for r in range(l, 3)]
    totals = [0, 0, 0]
    for sequence in product(ops, repeat=q):
        array = list(values)
        for l, r in sequence:
            array[l:r + 1] = [max(array[l:r + 1])] * (r - l + 1)
        totals = [t + a for t, a in zip(totals, array)]
    assert scaled_expectations(values, q) == [t % 10000 for t in totals]


def test_segment_tree_sorting_matches_enumeration():
    def brute(array, n):
        count = int(array == sorted(array))
        for used in range(1, 1 << n):
            for types in permutations([i for i in range(n) if used >> i & 1]):
                count += walk(list(array), types)
        return count

    def walk(array, types):
        if not types:
            return int(array == sorted(array))
        size, total = 1 << types[0], 0
        for a, b in combinations(range(0, len(array), size), 2):
            nxt = list(array)
            nxt[a:a + size], nxt[b:b + size] = nxt[b:b + size], nxt[a:a + size]
            total += walk(nxt, types[1:])
        return total

    rng = random.Random(3)
    for _ in range(20):
        array = list(range(1, 9))
        rng.shuffle(array)
        assert sorting_sequences(array, 3) == brute(array, 3)
    assert sorting_sequences([3, 4, 1, 2, 5, 6, 7, 8], 3) == brute([3, 4, 1, 2, 5, 6, 7, 8], 3) > 0


def test_xor_equation_matches_enumeration():
    rng = random.Random(4)
    for _ in range(60):
        n, high = rng.randint(1, 3), rng.randint(0, 12)
        low, k = rng.randint(0, high), rng.randint(0, 15)
        expected = sum(reduce(int.__xor__, x) == k for x in product(range(low, high + 1), repeat=n))
        assert tuples_in_range(n, low, high, k) == expected


def partitions_brute(n: int, k: int, largest: int) -> int:
    """Non-increasing k-tuples of positive integers <= largest that sum to n."""
    if k == 0:
        return int(n == 0)
    return sum(partitions_brute(n - part, k - 1, part) for part in range(1, min(n, largest) + 1))


def test_closed_form_counts_match_enumeration():
    for n in range(1, 13):
        subsets = [{i + 1 for i in range(n) if mask >> i & 1} for mask in range(1 << n)]
        assert free_subsets(n) == sum(all(2 * x not in s and 3 * x not in s for x in s) for s in subsets)
        for k in range(1, n + 1):
            assert partitions_into_parts(n, k) == partitions_brute(n, k, n)
    for m, delta in product(range(1, 6), range(0, 4)):
        exact = sum(comb(m + delta, i) * comb(m, j) for i in range(m + delta + 1) for j in range(i))
        assert [pairs_with_more_ones(m, delta, k) for k in (1, 3)] == [exact % 10, exact % 1000]
    for boys, girls in product(range(1, 4), repeat=2):
        people = ["b"] * boys + ["g"] * girls + ["t", "t"]
        patterns = {p for p in permutations(people)
                    if not any(a == b and a in "gt" for a, b in zip(p, p[1:]))}
        assert line_ups(boys, girls) == len(patterns) * 2 * factorial(boys) * factorial(girls)
    for a, b in product(range(1, 9), repeat=2):
        height = max(h for h in range(6) if h * (h + 1) // 2 <= a + b)
        towers = sum(1 for colours in product((0, 1), repeat=height)
                     if sum(i + 1 for i, c in enumerate(colours) if c) <= a
                     and sum(i + 1 for i, c in enumerate(colours) if not c) <= b)
        assert tallest_tower_colourings(a, b) == towers
