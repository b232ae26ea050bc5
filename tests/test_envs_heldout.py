"""Targeted tests for the 50 held-out environments: reward structure on hand-made instances and
the exact solvers against brute force on small random instances."""

import itertools
import math
import random
import time
from fractions import Fraction
from functools import lru_cache, reduce

import pytest

from rlve_jax.gym.environments._common import adjacency, grid_text, random_tree
from rlve_jax.gym.environments._formulas import Arithmetic, ArithmeticBoundError
from rlve_jax.gym.environments.baj_bytecomputer import min_operations
from rlve_jax.gym.environments.banned_point_superset_path_counting import Grid, Inner, count_paths, submasks
from rlve_jax.gym.environments.banyan_heart import possible_hearts
from rlve_jax.gym.environments.canon import count_even_sequences
from rlve_jax.gym.environments.circulating_decimal_counting import count_pure_repeating
from rlve_jax.gym.environments.clique_independent_set_partitioning_counting import count_split_partitions
from rlve_jax.gym.environments.countdown_close import ExpressionSearch, chain_expression
from rlve_jax.gym.environments.cow_dance_show import show_length
from rlve_jax.gym.environments.dyn_dynamite import max_key_distance, optimal_centers
from rlve_jax.gym.environments.gra_minima_game import optimal_difference
from rlve_jax.gym.environments.grid_triangle_counting import count_triangles
from rlve_jax.gym.environments.land_acquisition import grouping_cost, optimal_groups
from rlve_jax.gym.environments.landform_generation_counting import count_height_sequences
from rlve_jax.gym.environments.making_grade import closest_monotone, is_monotone
from rlve_jax.gym.environments.minimum_dominating_interval import cheapest_points, hit_cost
from rlve_jax.gym.environments.most_component_tree_removing_two_paths import most_components
from rlve_jax.gym.environments.stone_intervals_game import alice_total
from rlve_jax.gym.environments.subset_sum_sequence import nth_power_sum
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, FormatError, Problem


def reward(name: str, data: dict, answer: str) -> float:
    env = registry.make(name)
    problem = Problem(name, 0, 0, "", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


def verdict(name: str, data: dict, answer: str):
    env = registry.make(name)
    problem = Problem(name, 0, 0, "", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS)


# ---------------------------------------------------------------------------
# CountdownClose: restricted parser, closeness reward, threshold from the best reachable value


def test_countdown_power_tower_is_rejected_quickly():
    data = {"numbers": [7, 5, 8, 7, 1], "target": 100, "threshold": 1.0}
    start = time.perf_counter()
    result = verdict("CountdownClose", data, "7**5**8**7*1")
    assert time.perf_counter() - start < 10.0  # guards against a hang, not a benchmark
    assert result.reward == -1.0 and not result.format_ok


def test_arithmetic_parser_bounds_powers_and_never_evaluates_code():
    with pytest.raises(ArithmeticBoundError):
        Arithmetic("7**5**8**7*1", allow_power=True).value()
    with pytest.raises(ArithmeticBoundError):
        Arithmetic("2**4096", allow_power=True).value()
    assert Arithmetic("2**10 - 3*(4 - 6)/2", allow_power=True).value() == 1027
    assert Arithmetic("-2**2", allow_power=True).value() == -4
    for bad in ("__import__('os')", "2 ** 3", "1e5", "3.5", "(1", "1)", "", "07", "(" * 100 + "1" + ")" * 100):
        with pytest.raises(FormatError):
            Arithmetic(bad).value()


def test_countdown_reward_threshold_and_invalid_answers():
    data = {"numbers": [2, 3, 4], "target": 25, "threshold": 0.5}  # best reachable is 24
    assert verdict("CountdownClose", data, "2*3*4").accuracy
    assert reward("CountdownClose", data, "2 * (3 * 4)") == 0.5
    close = verdict("CountdownClose", data, "(2+3)*4")
    assert close.reward == pytest.approx(1 / 6) and not close.accuracy
    assert reward("CountdownClose", data, "2*3") == -0.5  # a number left out
    assert reward("CountdownClose", data, "2*3*4*1") == -0.5  # a number not given
    assert reward("CountdownClose", {"numbers": [2, 3, 3], "target": 1, "threshold": 1.0}, "2/(3-3)") == -0.5
    assert reward("CountdownClose", data, "2*3*4 = 24") == -1.0


def _all_values(numbers: tuple[Fraction, ...]) -> set[Fraction]:
    if len(numbers) == 1:
        return {numbers[0]}
    values = set()
    for i, j in itertools.combinations(range(len(numbers)), 2):
        rest = tuple(x for k, x in enumerate(numbers) if k not in (i, j))
        a, b = numbers[i], numbers[j]
        for c in {a + b, a - b, b - a, a * b} | ({a / b} if b else set()) | ({b / a} if a else set()):
            values |= _all_values(rest + (c,))
    return values


def test_countdown_threshold_is_the_best_reachable_value():
    env = registry.make("CountdownClose")
    for seed in range(8):
        problem = env.generate(seed % 2, seed)  # 3 and 4 operands: exhaustive search is cheap
        numbers, target = problem.data["numbers"], problem.data["target"]
        best_gap = min(abs(v - target) for v in _all_values(tuple(map(Fraction, numbers))))
        assert problem.pass_threshold == pytest.approx(float(1 / (1 + best_gap)))
        assert env.verify(problem, f"<answer>{env.reference(problem)}</answer>", ANSWER_TAGS).accuracy


def test_countdown_search_finds_exact_hits_with_many_operands():
    found = ExpressionSearch([3, 7, 9, 11, 2, 5, 8], budget=150_000).closest(200, max_side=5, stop_at_exact=True)
    assert found is not None and Arithmetic(found[1]).value() == 200


def test_countdown_chain_hits_the_target_with_parentheses_only_where_needed():
    assert chain_expression([2, 3, 4], 20, bound=100) == "(2 + 3) * 4"
    assert chain_expression([2, 3, 4], -1, bound=100) == "4 - (2 + 3)"
    assert chain_expression([2, 3, 12], 2, bound=100) == "12 / (2 * 3)"
    assert chain_expression([1, 1], 5, bound=100) is None


@pytest.mark.parametrize("difficulty", [8, 19, 40])  # 11, 22 and 43 operands: no meet-in-the-middle split fits
def test_countdown_reference_hits_the_target_with_many_operands(difficulty):
    env = registry.make("CountdownClose")
    for seed in range(5):
        problem = env.generate_any_level(difficulty, seed)
        reference = env.reference(problem)
        assert Arithmetic(reference).value() == problem.data["target"] and problem.pass_threshold == 1.0
        assert env.verify(problem, f"<answer>{reference}</answer>", ANSWER_TAGS).reward == 1.0


# ---------------------------------------------------------------------------
# Partial credit and invalid answers on hand-made instances


def test_crt_fraction_of_congruences():
    data = {"congruences": [[1, 2], [2, 3]], "reference": "5"}
    assert reward("CRT", data, "11") == 1.0
    assert reward("CRT", data, "1") == pytest.approx(0.5 ** 10)
    assert reward("CRT", data, "-1") == -1.0


def test_topological_sort_two_part_reward():
    data = {"N": 3, "constraints": [[2, 0]], "reference": "2 0 1"}
    assert reward("TopologicalSort_MinimalLexicographicalOrder", data, "2 0 1") == 1.0
    assert reward("TopologicalSort_MinimalLexicographicalOrder", data, "2 1 0") == pytest.approx(
        0.5 + 0.5 * (1 / 3) ** 5)
    assert reward("TopologicalSort_MinimalLexicographicalOrder", data, "0 2 1") == 0.0
    assert reward("TopologicalSort_MinimalLexicographicalOrder", data, "0 1") == -0.5


def test_double_stack_sorting_positional_reward():
    data = {"N": 3, "target": [2, 1, 0], "reference": "aaabbb"}
    assert reward("DoubleStackSorting", data, "aaabbb") == 1.0
    assert reward("DoubleStackSorting", data, "ababab") == pytest.approx((1 / 3) ** 10)
    assert reward("DoubleStackSorting", data, "b") == -0.5  # pop from an empty stack
    assert reward("DoubleStackSorting", data, "aaab") == -0.5  # output incomplete
    assert reward("DoubleStackSorting", data, "aaxb") == -1.0


def test_futoshiki_inequalities_givens_and_latin():
    data = {"N": 2, "puzzle": [[-1, -1], [-1, -1]], "constraints": [[0, 0, 0, 1], [1, 1, 1, 0]], "reference": ""}
    assert reward("FutoshikiPuzzle", data, "0 1\n1 0") == 1.0
    assert reward("FutoshikiPuzzle", data, "1 0\n0 1") == 0.0
    assert reward("FutoshikiPuzzle", {**data, "constraints": [[0, 0, 0, 1], [1, 0, 1, 1]]}, "0 1\n1 0") == 0.5 ** 5
    assert reward("FutoshikiPuzzle", data, "0 0\n1 1") == -0.5
    assert reward("FutoshikiPuzzle", {**data, "puzzle": [[1, -1], [-1, -1]]}, "0 1\n1 0") == -0.5
    assert reward("FutoshikiPuzzle", data, "0 1\n1 0\n0 1") == -1.0


def test_skyscraper_matching_clues():
    gold = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    data = {"N": 3, "clues": {"top": [3, 2, 1], "bottom": [1, 2, 2], "left": [3, 2, 1], "right": [1, 2, 2]},
            "reference": grid_text(gold)}
    assert reward("SkyscraperPuzzle", data, grid_text(gold)) == 1.0
    assert reward("SkyscraperPuzzle", data, "0 1 2\n2 0 1\n1 2 0") == pytest.approx(0.5 ** 10)
    assert reward("SkyscraperPuzzle", data, "0 1 2\n0 1 2\n0 1 2") == -0.5
    assert reward("SkyscraperPuzzle", data, "0 1 2\n1 2 0") == -1.0


def test_counting_rewards():
    data = {"N": 1, "M": 1, "reference": "4"}
    assert reward("GridTriangleCounting", data, "2") == pytest.approx(0.5 ** 10)
    assert reward("GridTriangleCounting", data, "8") == pytest.approx(0.5 ** 10)
    assert reward("GridTriangleCounting", data, "0") == -1.0
    zero = {"N": 9, "reference": "0"}
    assert reward("IntegerFactorizationCounting", zero, "0") == 1.0
    assert reward("IntegerFactorizationCounting", zero, "1") == 0.0
    assert reward("IntegerFactorizationCounting", zero, "-1") == -1.0
    assert reward("SubmatrixSumDivisibleCounting", {"matrix": [[1]], "K": 2, "reference": "0"}, "0") == 1.0


def test_modular_answers():
    data = {"N": 2, "M": 3, "mod": 5, "reference": str(count_even_sequences(2, 3) % 5)}
    assert data["reference"] == "1"
    assert reward("Canon", data, "1") == 1.0
    assert reward("Canon", data, "6") == -0.5  # the right count, but not reduced modulo 5
    assert reward("Canon", data, "0") == 0.0


def test_minimum_spanning_tree_rewards():
    data = {"N": 3, "edges": [[0, 1, 1], [1, 2, 2], [0, 2, 4]], "optimum": 3, "reference": "0 1 1 2"}
    assert reward("MinimumSpanningTree", data, "1 0 2 1") == 1.0
    assert reward("MinimumSpanningTree", data, "0 1 0 2") == pytest.approx((3 / 5) ** 5)
    assert reward("MinimumSpanningTree", data, "0 1 0 1") == -0.5
    assert reward("MinimumSpanningTree", data, "0 1") == -0.5
    assert reward("MinimumSpanningTree", data, "0 1 1") == -1.0


def test_maximization_rewards():
    xor = {"values": [1, 2, 3], "optimum": 3, "reference": "2"}
    assert reward("MaxXorSet", xor, "0 1") == 1.0
    assert reward("MaxXorSet", xor, "0") == pytest.approx((1 / 3) ** 5)
    assert reward("MaxXorSet", xor, "0 0") == -0.5
    assert reward("MaxXorSet", xor, "3") == -0.5
    tree = {"weights": [1, 5, 1], "edges": [[0, 1], [1, 2]], "optimum": 5, "reference": "1"}
    assert reward("Maximum_IndependentSet_Tree", tree, "1") == 1.0
    assert reward("Maximum_IndependentSet_Tree", tree, "0 2") == pytest.approx((2 / 5) ** 3)
    assert reward("Maximum_IndependentSet_Tree", tree, "0 1") == -0.5


def test_minimization_rewards():
    pipeline = {"A": [3, 1], "B": [1, 2], "optimum": 5, "reference": "1 0"}
    assert reward("PipelineArrangement", pipeline, "0 1") == pytest.approx((5 / 6) ** 5)
    assert reward("PipelineArrangement", pipeline, "1 1") == -0.5
    land = {"W": [3, 1], "L": [1, 3], "optimum": 6, "reference": "1\n2"}
    assert reward("LandAcquisition", land, "2\n1") == 1.0
    assert reward("LandAcquisition", land, "1 2") == pytest.approx((6 / 9) ** 5)
    assert reward("LandAcquisition", land, "1\n1") == -0.5
    grade = {"A": [1, 3, 2], "optimum": 1, "reference": "1 3 3"}
    assert reward("MakingGrade", grade, "1 2 2") == 1.0
    assert reward("MakingGrade", grade, "1 2 3") == pytest.approx(0.5 ** 5)
    assert reward("MakingGrade", grade, "3 1 2") == -0.5
    dynamite = {"N": 5, "edges": [[0, 1], [1, 2], [2, 3], [3, 4]], "keys": [0, 4], "M": 1, "optimum": 2,
                "reference": "2"}
    assert reward("DynDynamite", dynamite, "2") == 1.0
    assert reward("DynDynamite", dynamite, "1") == pytest.approx((2 / 3) ** 5)
    assert reward("DynDynamite", dynamite, "1 2") == -0.5
    intervals = {"N": 3, "intervals": [[1, 1, 5], [1, 3, 1], [3, 3, 2]], "K": 1, "optimum": 1, "reference": "2"}
    assert reward("Minimum_DominatingInterval", intervals, "2") == 1.0
    assert reward("Minimum_DominatingInterval", intervals, "1") == pytest.approx((1 / 6) ** 5)
    assert reward("Minimum_DominatingInterval", intervals, "4") == -0.5


def test_number_answers_with_validity_checks():
    assert reward("NextPalindromic", {"N": 123, "reference": "131"}, "141") == pytest.approx((131 / 141) ** 5)
    assert reward("NextPalindromic", {"N": 123, "reference": "131"}, "121") == -0.5
    assert reward("NextPalindromic", {"N": 123, "reference": "131"}, "132") == -0.5
    assert reward("SmallestBinaryMultiple", {"A": 3, "reference": "37"}, "370") == pytest.approx(0.1 ** 5)
    assert reward("SmallestBinaryMultiple", {"A": 3, "reference": "37"}, "38") == -0.5
    assert reward("SmallestBinaryMultiple", {"A": 3, "reference": "37"}, "0") == -1.0
    assert reward("SubsetSumSequence", {"N": 6, "K": 3, "reference": "12"}, "13") == pytest.approx((12 / 13) ** 2)
    assert reward("SubsetSumSequence", {"N": 6, "K": 3, "reference": "12"}, "5") == 0.0  # 5 = 12 in base 3
    assert reward("SubsetSumSequence", {"N": 6, "K": 3, "reference": "12"}, "0") == -1.0



def test_subset_sum_sequence_reads_n_in_bases_above_36():
    """K reaches 2 + level (42 at level 40), past int()'s largest base, 36."""
    assert [nth_power_sum(n, 40) for n in range(1, 8)] == [1, 40, 41, 1600, 1601, 1640, 1641]
    env = registry.make("SubsetSumSequence")
    problems = [env.generate(40, seed) for seed in range(60)]
    assert max(p.data["K"] for p in problems) > 36
    for problem in problems:
        assert env.verify(problem, f"<answer>{env.reference(problem)}</answer>", ANSWER_TAGS).reward == 1.0

def test_banyan_heart_intersection_over_union():
    data = {"N": 5, "edges": [[2, 5], [5, 3], [1, 5], [5, 4]], "reference": "FTTTF"}
    assert possible_hearts(5, data["edges"]) == [False, True, True, True, False]
    assert reward("BanyanHeart", data, "FTTFF") == pytest.approx((2 / 3) ** 5)
    assert reward("BanyanHeart", data, "TTTTT") == pytest.approx((3 / 5) ** 5)
    assert reward("BanyanHeart", data, "FTT") == -1.0
    assert reward("BanyanHeart", data, "FTTTx") == -1.0


def test_jug_puzzle_simulation():
    data = {"capacities": [3, 5], "target": 4, "reference": ""}
    plan = "Fill 1\nPour 1 0\nEmpty 0\nPour 1 0\nFill 1\nPour 1 0"
    assert reward("JugPuzzle", data, plan) == 1.0
    assert reward("JugPuzzle", data, plan + "\nEmpty 1") == 0.0
    assert reward("JugPuzzle", data, "Fill 2") == -0.5
    assert reward("JugPuzzle", data, "Pour 0 0") == -0.5
    assert reward("JugPuzzle", data, "Jump 1") == -1.0


def test_graph_fraction_rewards():
    triangle = {"N": 3, "edges": [[0, 1], [1, 2], [0, 2]], "reference": "1 1 1"}
    assert reward("EvenDegreeGraphPartitioning", triangle, "1 1 1") == 1.0
    assert reward("EvenDegreeGraphPartitioning", triangle, "1 1 2") == pytest.approx((1 / 3) ** 10)
    assert reward("EvenDegreeGraphPartitioning", triangle, "1 3 1") == -0.5
    splitting = {"N": 3, "subsets": [[0, 1], [1, 2], [0, 2]], "reference": "0"}
    assert reward("SetSplitting", splitting, "0") == pytest.approx((2 / 3) ** 10)
    assert reward("SetSplitting", splitting, "") == 0.0
    assert reward("SetSplitting", splitting, "0 0") == -0.5
    party = {"N": 2, "edges": [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]], "reference": "0 1"}
    assert reward("ImpParty", party, "2 3") == 1.0
    assert reward("ImpParty", party, "4 5") == 0.0
    assert reward("ImpParty", party, "0 0") == -0.5
    iso = {"N1": 3, "N2": 3, "edges1": [[0, 1]], "edges2": [[1, 2]], "reference": "1 2 0"}
    assert reward("SubgraphIsomorphism", iso, "1 2 0") == 1.0
    assert reward("SubgraphIsomorphism", iso, "0 1 2") == pytest.approx((1 / 3) ** 10)
    assert reward("SubgraphIsomorphism", iso, "0 0 1") == -0.5


def test_matrix_rewards():
    power = {"A": [[1, 1], [0, 1]], "K": 3, "reference": "1 3\n0 1"}
    assert reward("Matrix_BinaryExponentiation", power, "1 3\n0 1") == 1.0
    assert reward("Matrix_BinaryExponentiation", power, "1 2\n0 1") == pytest.approx(0.75 ** 5)
    assert reward("Matrix_BinaryExponentiation", power, "1 3") == -1.0
    diagonals = {"matrix": [[1, 0, 1], [0, 1, 0], [1, 0, 1]], "reference": "0 1 2\n0 1 2"}
    assert reward("MatrixPermutation_BothDiagonalOne", diagonals, "0 1 2\n0 1 2") == 1.0
    assert reward("MatrixPermutation_BothDiagonalOne", diagonals, "0 1 2\n1 0 2") == pytest.approx(0.4 ** 5)
    assert reward("MatrixPermutation_BothDiagonalOne", diagonals, "0 1 1\n0 1 2") == -0.5
    assert reward("MatrixPermutation_BothDiagonalOne", diagonals, "0 1 2") == -1.0
    polynomial = {"N": 2, "points": [], "reference": "1 2 3"}
    assert reward("PolynomialInterpolation", polynomial, "1 2 4") == pytest.approx((2 / 3) ** 10)
    assert reward("PolynomialInterpolation", polynomial, "1 2") == -0.5


# ---------------------------------------------------------------------------
# Exact solvers against brute force


def _random_trees(count: int, max_n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(1, max_n)
        yield rng, n, random_tree(n, rng, "coin")


def _brute_hearts(n: int, edges: list[list[int]]) -> list[bool]:
    neighbours = adjacency(n + 1, edges, sort=True)
    toward = {}
    for b in range(1, n + 1):
        parent, order = {b: b}, [b]
        for u in order:
            for v in neighbours[u]:
                if v not in parent:
                    parent[v] = u
                    order.append(v)
        toward.update({(a, b): parent[a] for a in range(1, n + 1)})
    seen, stack, hearts = set(), [(1 << 1, 1)], set()
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        mask, heart = state
        if mask == (1 << (n + 1)) - 2:
            hearts.add(heart)
        for u in range(1, n + 1):
            for v in neighbours[u]:
                if mask >> u & 1 and not mask >> v & 1:
                    stack.append((mask | 1 << v, toward[heart, v]))
    return [v in hearts for v in range(1, n + 1)]


def test_banyan_heart_matches_brute_force():
    for _, n, edges in _random_trees(150, 8, seed=1):
        edges = [[u + 1, v + 1] for u, v in edges]
        assert possible_hearts(n, edges) == _brute_hearts(n, edges), edges


def test_dynamite_greedy_matches_brute_force():
    for rng, n, edges in _random_trees(150, 8, seed=2):
        keys = sorted(rng.sample(range(n), rng.randint(1, n)))
        m = rng.randint(1, n)
        best, centers = optimal_centers(n, edges, keys, m)
        brute = min(max_key_distance(n, edges, keys, list(c)) for c in itertools.combinations(range(n), m))
        assert best == brute == max_key_distance(n, edges, keys, centers) and len(set(centers)) == m


def test_most_components_on_known_trees():
    assert most_components(5, [[0, 1], [0, 2], [0, 3], [0, 4]]) == 4  # remove the centre of a star
    assert most_components(7, [[i, i + 1] for i in range(6)]) == 3  # a path: remove two inner vertices
    # two stars joined at their centres: removing both centres (one path) leaves every leaf alone
    assert most_components(8, [[0, 1], [0, 2], [0, 3], [0, 4], [4, 5], [4, 6], [4, 7]]) == 6


def test_counting_solvers_match_brute_force():
    for n in range(1, 4):
        for m in range(1, 5):
            subsets = range(1, 2 ** n)
            assert count_even_sequences(n, m) == sum(
                1 for t in itertools.permutations(subsets, m) if reduce(lambda a, b: a ^ b, t) == 0)
    rng = random.Random(3)
    for _ in range(60):
        n = rng.randint(1, 5)
        heights, limits = [rng.randint(1, n) for _ in range(n)], [rng.randint(1, n) for _ in range(n)]
        sequences = {tuple(heights[i] for i in p) for p in itertools.permutations(range(n))
                     if all(sum(heights[q] > heights[p[i]] for q in p[:i]) < limits[p[i]] for i in range(n))}
        assert count_height_sequences(heights, limits) == len(sequences)
    for n in range(1, 4):
        for m in range(1, 4):
            points = [(x, y) for x in range(n + 1) for y in range(m + 1)]
            assert count_triangles(n, m) == sum(
                1 for a, b, c in itertools.combinations(points, 3)
                if (b[0] - a[0]) * (c[1] - a[1]) != (b[1] - a[1]) * (c[0] - a[0]))
    for n, m, k in [(2, 6, 10), (5, 7, 4), (6, 6, 6)]:
        values = {Fraction(x, y) for x in range(1, n + 1) for y in range(1, m + 1)}
        assert count_pure_repeating(n, m, k) == sum(math.gcd(v.denominator, k) == 1 for v in values)


def test_superset_paths_match_enumeration():
    def walks(point, target, banned):
        if point == target:
            return 1
        total = 0
        for axis in range(3):
            for bigger in submasks(target[axis]):
                if bigger != point[axis] and bigger & point[axis] == point[axis]:
                    nxt = point[:axis] + (bigger,) + point[axis + 1:]
                    if nxt not in banned:
                        total += walks(nxt, target, banned)
        return total

    rng = random.Random(4)
    for _ in range(30):
        target = tuple(rng.randint(0, 5) for _ in range(3))
        inner = [p for p in itertools.product(*(submasks(t) for t in target)) if p not in ((0, 0, 0), target)]
        banned = set(rng.sample(inner, rng.randint(0, len(inner)) // 2))
        assert count_paths(target, banned) == walks((0, 0, 0), target, banned)
        mod = rng.randint(2, 10_000)
        assert count_paths(target, banned, mod) == walks((0, 0, 0), target, banned) % mod
        assert list(Inner(Grid(target))) == inner  # the lazy grid the generator samples banned points from


def test_superset_paths_take_no_longer_for_targets_with_many_bits():
    """Level 40, seed 2160 draws a target of 19 bits: 2^19 points below it, each summing over its submasks (6 CPU s
    for a walk over the grid). The count goes by the banned points instead, at most MAX_O of them, so the largest
    target of level 40 (24 bits, 16.7 M points) costs no more."""
    env = registry.make("BannedPointSupersetPathCounting")
    start = time.process_time()
    problem = env.generate(40, 2160)
    assert sum(x.bit_count() for x in problem.data["target"]) == 19
    target = (255, 255, 255)
    banned = set(random.Random(0).sample(Inner(Grid(target)), 721))
    assert count_paths(target, banned, 9973) == count_paths(target, banned) % 9973
    assert time.process_time() - start < 5.0


def test_split_partitions_match_brute_force():
    rng = random.Random(5)
    for _ in range(60):
        n = rng.randint(2, 7)
        clique = sorted(rng.sample(range(n), rng.randint(1, n - 1)))
        edges = [[u, v] for u in range(n) for v in range(u + 1, n)
                 if (u in clique and v in clique) or ((u in clique) != (v in clique) and rng.random() < 0.5)]
        adjacent = {frozenset(e) for e in map(tuple, edges)}
        brute = sum(1 for mask in range(1, 2 ** n - 1)
                    if all(frozenset((a, b)) in adjacent for a, b in itertools.combinations(
                        [v for v in range(n) if mask >> v & 1], 2))
                    and not any(frozenset((a, b)) in adjacent for a, b in itertools.combinations(
                        [v for v in range(n) if not mask >> v & 1], 2)))
        assert count_split_partitions(n, edges, clique) == brute


def test_game_solvers_match_brute_force():
    @lru_cache(maxsize=None)
    def minima_game(cards: tuple[int, ...]) -> int:
        if not cards:
            return 0
        best = None
        for mask in range(1, 2 ** len(cards)):
            taken = [c for i, c in enumerate(cards) if mask >> i & 1]
            left = tuple(c for i, c in enumerate(cards) if not mask >> i & 1)
            value = min(taken) - minima_game(left)
            best = value if best is None else max(best, value)
        return best

    rng = random.Random(6)
    for _ in range(40):
        cards = tuple(sorted(rng.randint(1, 9) for _ in range(rng.randint(1, 5))))
        assert optimal_difference(list(cards)) == minima_game(cards)
    assert alice_total([5, 0, 1, 9]) == 14  # take 5; Bob must take 1; then 9
    assert alice_total([0, 1, 2, 3]) == 4


def test_bytecomputer_matches_breadth_first_search():
    def bfs(values):
        seen, frontier = {tuple(values)}, [tuple(values)]
        for steps in range(12):
            nxt = []
            for state in frontier:
                if all(a <= b for a, b in zip(state, state[1:])):
                    return steps
                for i in range(len(state) - 1):
                    new = list(state)
                    new[i + 1] += new[i]
                    new = tuple(new)
                    if max(map(abs, new)) <= 3 and new not in seen:
                        seen.add(new)
                        nxt.append(new)
            frontier = nxt
        return None

    for values in itertools.product((-1, 0, 1), repeat=4):
        assert min_operations(list(values)) == bfs(values), values


def test_optimizers_match_brute_force():
    def partitions(items):
        if not items:
            yield []
            return
        for rest in partitions(items[1:]):
            yield [[items[0]]] + rest
            for i in range(len(rest)):
                yield rest[:i] + [[items[0]] + rest[i]] + rest[i + 1:]

    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 6)
        widths, lengths = [rng.randint(1, 20) for _ in range(n)], [rng.randint(1, 20) for _ in range(n)]
        best, groups = optimal_groups(widths, lengths)
        assert best == grouping_cost(groups, widths, lengths) == min(
            grouping_cost(p, widths, lengths) for p in partitions(list(range(n))))
        values = [rng.randint(0, 5) for _ in range(rng.randint(1, 4))]
        cost, b = closest_monotone(values)
        assert cost == sum(abs(x - y) for x, y in zip(values, b)) and is_monotone(b)
        assert cost == min(sum(abs(x - y) for x, y in zip(values, c))
                           for c in itertools.product(range(6), repeat=len(values)) if is_monotone(list(c)))
        size = rng.randint(1, 7)
        every = [[lo, hi] for lo in range(1, size + 1) for hi in range(lo, size + 1)]
        intervals = [[lo, hi, rng.randint(1, 10)] for lo, hi in rng.sample(every, min(len(every), 2 * size))]
        covered = [p for p in range(1, size + 1) if any(lo <= p <= hi for lo, hi, _ in intervals)]
        k = rng.randint(1, len(covered))
        best, points = cheapest_points(size, intervals, k)
        assert best == hit_cost(intervals, points) == min(
            hit_cost(intervals, list(c)) for c in itertools.combinations(covered, k))


def test_cow_dance_show_by_time_steps():
    rng = random.Random(8)
    for _ in range(40):
        durations = [rng.randint(1, 6) for _ in range(rng.randint(3, 8))]
        k = rng.randint(2, len(durations) - 1)
        remaining, waiting, time_now = [], list(durations), 0
        while waiting or remaining:
            while waiting and len(remaining) < k:
                remaining.append(waiting.pop(0))
            time_now += 1
            remaining = [r - 1 for r in remaining if r > 1]
        assert show_length(durations, k) == time_now
