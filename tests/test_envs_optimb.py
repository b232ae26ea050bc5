"""Targeted tests for the optimization batch B: reward structure on hand-made instances, and the exact
solvers against brute force on small random instances."""

import itertools
import random

import pytest

from rlve_jax.gym.environments._common import min_cost_assignment
from rlve_jax.gym.environments.min_cube_assignment import assignment_cost, cheapest_levels, is_feasible
from rlve_jax.gym.environments.min_pair_sum_multiplication_permutation import min_product_permutation, sums
from rlve_jax.gym.environments.minimum_dominating_set_grid import cheapest_dominating_set, undominated_cells
from rlve_jax.gym.environments.minimum_interval_coverage import cheapest_copies, coverage
from rlve_jax.gym.environments.minimum_sum_difference_submatrix import roughness, smoothest_submatrix
from rlve_jax.gym.environments.myj import best_prices, revenue
from rlve_jax.gym.environments.ska_rock_garden import best_flips, flip_cost, perimeter, placed
from rlve_jax.gym.environments.slo_elephants import apply_swaps, cheapest_swaps
from rlve_jax.gym.environments.stunt_flying import best_show, show_score
from rlve_jax.gym.environments.value_diminishing_selection import best_sequence, total_gain
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem


def reward(name: str, data: dict, answer: str) -> float:
    env = registry.make(name)
    problem = Problem(name, 0, 0, "", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


def rewards(name: str, data: dict, answers: list[str]) -> list[float]:
    return [reward(name, data, answer) for answer in answers]


# ---------------------------------------------------------------------------
# Reward structure on hand-made instances


def test_min_cube_assignment():
    data = {"P": 1, "Q": 2, "R": 2, "D": 0, "cost": [[[1, 5], [4, 1]]], "optimum": 5}
    assert rewards("MinCubeAssignment", data, ["0 0", "1 1", "0 1", "0 2", "0", "a"]) == pytest.approx(
        [1.0, (5 / 6) ** 5, -0.5, -0.5, -0.5, -1.0])


def test_min_division_sum_xor():
    data = {"A": [1, 1, 2], "K": 2, "optimum": 2}  # [1,1][2] has OR 2
    assert rewards("MinDivisionSumXor", data, ["2 3", "3", "1 3", "1 2 3", "2 4", "3 2", ""]) == pytest.approx(
        [1.0, (2 / 4) ** 5, (2 / 3) ** 5, -0.5, -0.5, -0.5, -1.0])  # empty: a format error, as the original
    assert reward("MinDivisionSumXor", {"A": [0, 0], "K": 2, "optimum": 0}, "2") == 1.0


def test_minimum_dominating_set_grid():
    data = {"cost": [[1, 5], [5, 1]], "optimum": 2}
    assert rewards("Minimum_DominatingSet_Grid", data,
                   ["1 1\n2 2", "1 2\n2 1", "1 1", "1 1\n1 1", "3 1", "1 2 3"]) == pytest.approx(
        [1.0, (2 / 10) ** 5, -0.2, -0.5, -0.5, -1.0])


def test_minimum_max_abs_slicer_two_part_reward():
    # weights 1 2 3 -4 -5; splits with largest |sum| 5: ends at values (1, 4, 5) and (2, 4, 5)
    data = {"A": [1, 2, 3, 4, 5], "B": [1, 1, 1, -1, -1], "M": 3, "optimum": 5, "gold": [1, 4, 5]}
    assert rewards("Minimum_MaxAbsSlicer", data, ["1 4 5", "2 4 5", "3 4 5", "4 3 5", "1 4 6", "1 5"]) == pytest.approx(
        [1.0, 0.5 + 0.5 * (2 / 3) ** 5, 0.5 * (5 / 6) ** 5, -0.5, -0.5, -0.5])


def test_minimum_max_slicer():
    data = {"A": [1, 2, 3, 4], "M": 3, "optimum": 4}
    assert rewards("Minimum_MaxSlicer", data, ["1 2 3", "0 1 3", "0 1 2 3", "1 2 4", "2 1 3"]) == pytest.approx(
        [1.0, (4 / 7) ** 3, -0.5, -0.5, -0.5])


def test_minimum_interval_coverage():
    data = {"N": 2, "intervals": [[1, 1, 1], [1, 2, 3], [2, 2, 1]], "NEED": [0, 1, 1], "optimum": 2}
    assert rewards("MinimumIntervalCoverage", data, ["1 0 1", "0 1 0", "1 0 0", "-1 1 1", "1 0"]) == pytest.approx(
        [1.0, (2 / 3) ** 5, -0.5, -0.5, -1.0])


def test_minimum_sum_difference_submatrix():
    matrix = [[1, 9, 2], [8, 1, 7], [1, 9, 3]]
    best, rows, columns = smoothest_submatrix(matrix, 2, 2)
    assert best == min(roughness(matrix, list(r), list(c))
                       for r in itertools.combinations(range(3), 2) for c in itertools.combinations(range(3), 2))
    data = {"matrix": matrix, "R": 2, "C": 2, "optimum": best}
    answer = " ".join(map(str, rows)) + "\n" + " ".join(map(str, columns))
    assert best == 4 and reward("MinimumSumDifferenceSubmatrix", data, answer) == 1.0
    assert reward("MinimumSumDifferenceSubmatrix", data, "0 1\n0 1") == pytest.approx((4 / 30) ** 5)
    assert rewards("MinimumSumDifferenceSubmatrix", data, ["1 0\n0 1", "0 3\n0 1", "0 1", "0 1 2\n0 1"]) == [
        -0.5, -0.5, -1.0, -1.0]


def test_minimum_tree_weighted_dominating_ancestor():
    data = {"parent": [-1, 0, 1], "length": [0, 1, 1], "C": [0, 1, 5], "K": 1, "optimum": 1}
    assert rewards("MinimumTreeWeightedDominatingAncestor", data, ["2", "1", "0", "1 2", "3"]) == pytest.approx(
        [1.0, (1 / 5) ** 5, -0.5, -0.5, -0.5])


def test_minimum_unconflicted_grid_kmax():
    data = {"matrix": [[1, 9], [2, 1]], "K": 1, "optimum": 1}
    assert rewards("MinimumUnconflictedGridKMax", data, ["1 2", "2 1", "1 1", "1 3", "1"]) == pytest.approx(
        [1.0, (1 / 9) ** 5, -0.5, -0.5, -0.5])


def test_min_pair_sum_multiplication_permutation():
    data = {"A": [[1, 2], [2, 1]], "B": [[1, 2], [2, 1]], "optimum": 4}
    assert rewards("MinPairSumMultiplicationPermutation", data, ["0 1", "1 0", "0 0", "1 2"]) == pytest.approx(
        [1.0, (4 / 16) ** 5, -0.5, -0.5])


def test_min_sum_chebyshev_distance():
    data = {"points": [[1, 1, 1], [3, 1, 1]], "optimum": 2}
    assert rewards("MinSumChebyshevDistance", data, ["2 1", "3 1", "2 5", "2", "2 1 1"]) == pytest.approx(
        [1.0, 1.0, (2 / 8) ** 5, -1.0, -1.0])


def test_min_sum_distance_square_uses_half_integers():
    data = {"groups": [[0], [3]], "optimum4": 18}  # X = 1.5: 2 x 1.5^2 = 4.5
    assert rewards("MinSumDistanceSquare", data, ["3", "2", "1.5", "x"]) == pytest.approx(
        [1.0, (18 / 20) ** 5, -1.0, -1.0])


def test_min_sum_pre_xor():
    data = {"A": [-1, 3, 3], "optimum": 3}
    assert rewards("MinSumPreXor", data, ["0 3 3", "1 3 3", "0 3 4", "-1 3 3", "0 3"]) == pytest.approx(
        [1.0, (3 / 4) ** 5, -0.5, -0.5, -0.5])


def test_min_swap_two_permutations():
    data = {"A": [1, 2, 1], "B": [3, 3, 2], "optimum": 1}
    assert rewards("MinSwapTwoPermutations", data, ["0", "1 2", "", "0 1", "3", "0 0"]) == pytest.approx(
        [1.0, (1 / 2) ** 5, -0.2, -0.2, -0.5, -0.5])


def test_myj():
    data = {"N": 2, "customers": [[1, 2, 3], [2, 2, 5]], "optimum": 8}
    assert rewards("MYJ", data, ["3 5", "3 3", "5 5", "3", "3 5 1"]) == pytest.approx(
        [1.0, (6 / 8) ** 5, (5 / 8) ** 5, -0.5, -0.5])


def test_palembang_bridges():
    data = {"people": [[0, 4], [10, 10]], "K": 2, "optimum": 4}
    assert rewards("PalembangBridges", data, ["0 10", "10 2", "5 5", "1"]) == pytest.approx(
        [1.0, 1.0, (4 / 16) ** 5, -0.5])


def test_protecting_flowers():
    data = {"T": [1, 2], "D": [1, 1], "optimum": 1}
    assert rewards("ProtectingFlowers", data, ["1 2", "2 1", "1 1", "0 1"]) == pytest.approx(
        [1.0, (1 / 2) ** 5, -0.5, -0.5])


def test_quadratic_function_segmentation_clamps_negative_totals():
    data = {"A": [1, 1], "a": -1, "b": 4, "c": 0, "optimum": 6}
    assert rewards("QuadraticFunctionSegmentation", data, ["1 2", "2", "1", "2 1"]) == pytest.approx(
        [1.0, (4 / 6) ** 5, -0.5, -0.5])
    data = {"A": [1, 1], "a": -1, "b": 4, "c": -3, "optimum": 1}  # two batches total 0
    assert rewards("QuadraticFunctionSegmentation", data, ["2", "1 2"]) == [1.0, 0.0]


def test_shortest_unicolor_substring():
    data = {"S": "0000", "K": 1, "optimum": 2}
    assert rewards("ShortestUnicolorSubstring", data, ["0100", "0001", "0101", "010", "01a0"]) == pytest.approx(
        [1.0, (2 / 3) ** 5, -0.5, -1.0, -1.0])


def test_ska_rock_garden_two_part_reward():
    rocks = [[0, 2, 1], [2, 0, 5]]
    assert best_flips(rocks) == (0, 1, "10")
    data = {"rocks": rocks, "perimeter": 0, "price": 1}
    assert rewards("SkaRockGarden", data, ["10", "01", "00", "0", "0a"]) == pytest.approx(
        [1.0, 0.5 + 0.5 * (1 / 5) ** 5, 0.0, -1.0, -1.0])


def test_slo_elephants():
    data = {"current": [2, 1], "target": [1, 2], "C": [1, 1], "optimum": 2}
    assert rewards("SLOElephants", data, ["1 2", "1 2\n2 1\n1 2", "", "1 1", "1 3", "1 2 3"]) == pytest.approx(
        [1.0, (2 / 6) ** 5, -0.2, -0.5, -0.5, -1.0])


def test_stunt_flying():
    data = {"N": 4, "C": [2, 1], "optimum": 7}
    assert rewards("StuntFlying", data, ["0 1 1 0", "0 0 0 0", "0 1 2 0", "0 1 1"]) == pytest.approx(
        [1.0, (6 / 7) ** 5, -0.5, -0.5])


def test_task_arrangement():
    data = {"T": [1, 1], "F": [1, 1], "S": 2, "optimum": 8}
    assert rewards("TaskArrangement", data, ["2", "1 2", "1", "0 2"]) == pytest.approx(
        [1.0, (8 / 9) ** 3, -0.5, -0.5])


def test_value_diminishing_selection():
    data = {"W": [5, 5], "R": [1, 3], "optimum": 9}
    assert rewards("ValueDiminishingSelection", data, ["0 1", "1 0", "", "0 0", "2"]) == pytest.approx(
        [1.0, (7 / 9) ** 5, 0.0, -0.5, -0.5])
    assert reward("ValueDiminishingSelection", {"W": [0, 0], "R": [1, 1], "optimum": 0}, "0 1") == 1.0


def test_warehouse_construction():
    data = {"X": [1, 2], "P": [1, 1], "C": [10, 1], "optimum": 2}
    assert rewards("WarehouseConstruction", data, ["2", "1 2", "1", "3", "2 2"]) == pytest.approx(
        [1.0, (2 / 11) ** 5, -0.5, -0.5, -0.5])


def test_weighted_binary_tree_inconsistent_preorder_scores_zero():
    data = {"d": [1, 2, 3], "optimum": 6}
    assert rewards("WeightedBinaryTree", data, ["0 1 2", "2 0 1", "1 0 2", "1 2 0", "0 1", "0 1 1"]) == pytest.approx(
        [1.0, 1.0, (5 / 6) ** 5, 0.0, -0.5, -0.5])


def test_wil():
    data = {"A": [5, 1, 1, 5], "D": 1, "P": 2, "optimum": 3}
    assert rewards("WIL", data, ["1 1 1 3", "2 2 2 3", "1 2 1 3", "1 1 1 4", "1 1 1", "2 1 1 1"]) == pytest.approx(
        [1.0, (2 / 3) ** 5, -0.5, -0.5, -1.0, -0.5])


# ---------------------------------------------------------------------------
# Exact solvers against brute force


def test_cheapest_levels_matches_brute_force():
    rng = random.Random(0)
    for _ in range(60):
        rows, columns, levels = rng.randint(1, 2), rng.randint(1, 3), rng.randint(2, 3)
        cost = [[[rng.randint(1, 6) for _ in range(levels)] for _ in range(columns)] for _ in range(rows)]
        gap = rng.randint(0, levels - 1)
        best, chosen = cheapest_levels(cost, gap)
        grids = ([list(flat[i * columns:(i + 1) * columns]) for i in range(rows)]
                 for flat in itertools.product(range(levels), repeat=rows * columns))
        assert best == min(assignment_cost(cost, g) for g in grids if is_feasible(g, rows, columns, levels, gap))
        assert best == assignment_cost(cost, chosen) and is_feasible(chosen, rows, columns, levels, gap)


def test_cheapest_dominating_set_matches_brute_force():
    rng = random.Random(1)
    for _ in range(60):
        rows, columns = rng.randint(1, 3), rng.randint(1, 3)
        cost = [[rng.randint(1, 6) for _ in range(columns)] for _ in range(rows)]
        cells = [(i, j) for i in range(rows) for j in range(columns)]
        best, chosen = cheapest_dominating_set(cost)
        assert best == min(sum(cost[i][j] for i, j in subset) for k in range(len(cells) + 1)
                           for subset in itertools.combinations(cells, k)
                           if not undominated_cells(rows, columns, set(subset)))
        assert best == sum(cost[i][j] for i, j in chosen) and not undominated_cells(rows, columns, set(chosen))


def test_cheapest_copies_matches_brute_force():
    rng = random.Random(2)
    for _ in range(60):
        n, m = rng.randint(1, 3), rng.randint(1, 3)
        intervals = []
        for _ in range(m):
            low = rng.randint(1, n)
            intervals.append([low, rng.randint(low, n), rng.randint(1, 5)])
        coverable = coverage(n, intervals, [1] * m)
        need = [0] + [rng.randint(0, 3) if coverable[i] else 0 for i in range(1, n + 1)]
        best, copies = cheapest_copies(need, intervals)
        feasible = (c for c in itertools.product(range(4), repeat=m)
                    if all(coverage(n, intervals, list(c))[i] >= need[i] for i in range(1, n + 1)))
        assert best == min(sum(x * p for x, (_, _, p) in zip(c, intervals)) for c in feasible)


def test_min_product_permutation_and_assignment_match_brute_force():
    rng = random.Random(3)
    for _ in range(60):
        n = rng.randint(1, 5)
        cost = [[rng.randint(0, 9) for _ in range(n)] for _ in range(n)]
        column = min_cost_assignment(cost)
        assert sum(cost[i][column[i]] for i in range(n)) == min(
            sum(cost[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
        a = [[rng.randint(1, n) for _ in range(n)] for _ in range(n)]
        b = [[rng.randint(1, n) for _ in range(n)] for _ in range(n)]
        best, permutation = min_product_permutation(a, b)
        x, y = sums(a, b, permutation)
        assert best == x * y == min(sums(a, b, p)[0] * sums(a, b, p)[1] for p in itertools.permutations(range(n)))


def test_best_prices_match_brute_force_over_all_prices():
    env = registry.make("MYJ")
    for seed in range(40):
        data = env.generate(0, seed).data
        n, customers = data["N"], data["customers"]
        best, prices = best_prices(n, customers)
        assert best == data["optimum"] == revenue(prices, customers) == max(
            revenue(list(p), customers) for p in itertools.product(range(n * (n + 1) // 2 + 2), repeat=n))


def test_best_flips_match_brute_force():
    rng = random.Random(5)
    for _ in range(60):
        n = rng.randint(1, 6)
        rocks = [[rng.randint(0, 2 * n), rng.randint(0, 2 * n), rng.randint(1, n)] for _ in range(n)]
        best_perimeter, price, flips = best_flips(rocks)
        assert (best_perimeter, price) == (perimeter(placed(rocks, flips)), flip_cost(rocks, flips)) == min(
            (perimeter(placed(rocks, f)), flip_cost(rocks, f)) for f in map("".join, itertools.product("01", repeat=n)))


def test_cheapest_swaps_match_cycle_formula():
    rng = random.Random(6)
    for _ in range(60):
        n = rng.randint(2, 7)
        current, target = rng.sample(range(1, n + 1), n), rng.sample(range(1, n + 1), n)
        weight = {label: rng.randint(1, n) for label in range(1, n + 1)}
        swaps = cheapest_swaps(current, target, weight)
        assert apply_swaps(current, [list(s) for s in swaps]) == target
        lightest = min(weight.values())
        expected, where, seen = 0, {label: i for i, label in enumerate(current)}, set()
        for start in range(n):  # per cycle: min(own lightest rotates, borrow the global lightest)
            cycle, i = [], start
            while i not in seen:
                seen.add(i)
                cycle.append(weight[current[i]])
                i = where[target[i]]
            if len(cycle) > 1:
                total, low = sum(cycle), min(cycle)
                expected += min(total + (len(cycle) - 2) * low, total + low + (len(cycle) + 1) * lightest)
        assert sum(weight[x] + weight[y] for x, y in swaps) == expected


def test_small_sequence_solvers_match_brute_force():
    rng = random.Random(7)
    for _ in range(60):
        n = rng.randint(2, 5)
        kinds = rng.randint(2, 4)
        weights = [rng.randint(1, kinds) for _ in range(kinds)]
        assert show_score(best_show(n, weights), weights) == max(
            show_score(list(s), weights) for s in itertools.product(range(kinds), repeat=n))
        worth, decay = [rng.randint(0, 8) for _ in range(n)], [rng.randint(1, n) for _ in range(n)]
        assert total_gain(best_sequence(worth, decay), worth, decay) == max(
            total_gain(list(p), worth, decay) for k in range(n + 1) for p in itertools.permutations(range(n), k))


@pytest.mark.parametrize("name", ["MinDivisionSumXor", "Minimum_MaxSlicer", "QuadraticFunctionSegmentation",
                                  "TaskArrangement", "Minimum_MaxAbsSlicer"])
def test_segmentation_references_are_optimal_over_all_splits(name):
    """Every split of small generated instances scores at most the reference."""
    env = registry.make(name)
    for seed in range(15):
        problem = env.generate(seed % 3, seed)
        n = len(problem.data["T" if name == "TaskArrangement" else "A"])
        base = 0 if name == "Minimum_MaxSlicer" else 1
        best = 0.0
        for k in range(n):
            for cuts in itertools.combinations(range(1, n), k):
                ends = [*cuts, n]
                if name == "Minimum_MaxAbsSlicer":
                    answer = " ".join(str(problem.data["A"][e - 1]) for e in ends)
                else:
                    answer = " ".join(str(e - 1 + base) for e in ends)
                best = max(best, env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward)
        assert best == 1.0 == env.verify(problem, f"<answer>{env.reference(problem)}</answer>", ANSWER_TAGS).reward
