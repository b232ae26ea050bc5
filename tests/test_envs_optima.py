"""Targeted tests for the optimization batch A: every exact solver against brute force on small random
instances, and the reward rules with structure (partial credit, invalid answers, two-part rewards)."""

import itertools
import random
from fractions import Fraction

import pytest

from rlve_jax.gym.environments._common import (longest_non_decreasing, min_cost_assignment, random_tree,
                                  sparse_min_cost_assignment)
from rlve_jax.gym.environments._graphs import all_pairs_distances
from rlve_jax.gym.environments.axis_k_center import best_centers, total_distance
from rlve_jax.gym.environments.bez_minimalist_security import extreme_assignment
from rlve_jax.gym.environments.circulating_grid import changes, fewest_changes, target
from rlve_jax.gym.environments.cleaning_up import batches_cost, best_batches
from rlve_jax.gym.environments.cornfield import best_operations, raised
from rlve_jax.gym.environments.difference_constraint_system_dag import HOLDS, least_solution
from rlve_jax.gym.environments.disinfection import box_cost, cheapest_cleaning, uncleared
from rlve_jax.gym.environments.face_right_way import best_flips
from rlve_jax.gym.environments.fractional_programming import best_ratio_subset
from rlve_jax.gym.environments.fractional_programming_bipartite_graph_matching import best_ratio_assignment
from rlve_jax.gym.environments.gas_fire_extinguishers import extinguishers, fewest_extinguishers
from rlve_jax.gym.environments.hur_warehouse_store import most_customers
from rlve_jax.gym.environments.king_sorting import largest_reward
from rlve_jax.gym.environments.knapsack import best_items
from rlve_jax.gym.environments.maf_mafia import deaths, fewest_deaths_order, most_deaths_order
from rlve_jax.gym.environments.max_different_group_pair_division import best_cuts, split_score
from rlve_jax.gym.environments.max_minimum_after_interval_addition import best_intervals, minimum_after
from rlve_jax.gym.environments.max_mult_split import best_parts, product
from rlve_jax.gym.environments.max_no_conflicting_bombs import most_bombs
from rlve_jax.gym.environments.max_non_adjacent_k_element_sum import best_positions
from rlve_jax.gym.environments.max_permutation import largest_order
from rlve_jax.gym.environments.max_segment_coverage_constraint import coverage_ok, most_segments
from rlve_jax.gym.environments.max_sum_lds import best_permutation, lds_starting, lis_ending
from rlve_jax.gym.environments.max_tree_constrained_permutation_weight import best_order, order_value
from rlve_jax.gym.environments.maximum_independent_set_grid import best_selection, selection_value
from rlve_jax.gym.environments.min_conversion_to_cycle_cost import cheapest_cycle, conversion_cost, is_single_cycle
from rlve_jax.gym.environments.min_cost_reducing_lnds import cheapest_erasure
from rlve_jax.gym.environments.min_cost_tree_coverage import cheapest_cover
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem

TRIALS = 150


def reward(name: str, data: dict, text: str) -> float:
    """Reward of an answer text through the public verifier (format errors included)."""
    env = registry.make(name)
    problem = Problem(name, 0, 0, "prompt", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{text}</answer>", ANSWER_TAGS).reward


def rngs(count: int = TRIALS):
    return (random.Random(seed) for seed in range(count))


def subsets(n: int):
    return (list(c) for k in range(n + 1) for c in itertools.combinations(range(n), k))


# -- solvers against brute force ---------------------------------------------------------------


def test_assignment_solvers():
    for rng in rngs():
        n = rng.randint(1, 6)
        cost = [[rng.randint(-3, 9) for _ in range(n)] for _ in range(n)]
        best = min(sum(cost[i][p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
        dense = min_cost_assignment(cost)
        assert sorted(dense) == list(range(n)) and sum(cost[i][dense[i]] for i in range(n)) == best
        nonnegative = [[c + 3 for c in row] for row in cost]
        sparse = sparse_min_cost_assignment([[(j, c) for j, c in enumerate(row)] for row in nonnegative])
        assert sum(cost[i][sparse[i]] for i in range(n)) == best


def test_axis_k_center():
    for rng in rngs():
        n = rng.randint(2, 7)
        positions = sorted(rng.sample(range(5 * n + 1), n))
        k = rng.randint(1, n - 1)
        optimum, centers = best_centers(positions, k)
        assert len(set(centers)) == k and total_distance(positions, centers) == optimum
        assert optimum == min(total_distance(positions, list(c)) for c in itertools.combinations(range(n), k))


def test_bez_minimalist_security():
    for rng in rngs():
        n = rng.randint(1, 5)
        caps = [rng.randint(0, 4) for _ in range(n)]
        planted = [rng.randint(0, c) for c in caps]
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.5]
        edges = [[u, v, planted[u] + planted[v]] for u, v in pairs]
        feasible = [sum(x) for x in itertools.product(*(range(c + 1) for c in caps))
                    if all(x[u] + x[v] == w for u, v, w in edges)]
        for maximize in (False, True):
            values = extreme_assignment(caps, edges, maximize)
            assert all(0 <= x <= c for x, c in zip(values, caps))
            assert all(values[u] + values[v] == w for u, v, w in edges)
            assert sum(values) == (max(feasible) if maximize else min(feasible))


def test_circulating_grid():
    for rng in rngs(15):
        rows, columns = rng.choice([(2, 2), (2, 3), (3, 2)])
        grid = ["".join(rng.choice("LRUD") for _ in range(columns)) for _ in range(rows)]
        best = fewest_changes(grid)
        cells = [(r, c) for r in range(rows) for c in range(columns)]
        brute = min(
            sum(a != grid[r][c] for a, (r, c) in zip(arrows, cells))
            for arrows in itertools.product("LRUD", repeat=len(cells))
            if sorted(target(rows, columns, r, c, a) for a, (r, c) in zip(arrows, cells)) == list(range(len(cells))))
        assert changes(grid, best) == brute
        assert sorted(target(rows, columns, r, c, best[r][c]) for r, c in cells) == list(range(len(cells)))


def test_cleaning_up():
    for rng in rngs():
        n = rng.randint(1, 8)
        array = [rng.randint(1, 3) for _ in range(n)]
        brute = min(batches_cost(array, [c + 1 for c in cuts] + [n]) for cuts in subsets(n - 1))
        assert batches_cost(array, best_batches(array)) == brute


def test_cornfield_suffix_operations_are_enough():
    for rng in rngs(60):
        n, k = rng.randint(1, 4), rng.randint(1, 2)
        heights = [rng.randint(1, 2 * n) for _ in range(n)]
        intervals = [(l, r) for l in range(1, n + 1) for r in range(l, n + 1)]
        brute = max(longest_non_decreasing(raised(heights, [list(i) for i in ops]))
                    for count in range(k + 1) for ops in itertools.combinations_with_replacement(intervals, count))
        optimum, operations = best_operations(heights, k)
        assert optimum == brute and len(operations) <= k
        assert longest_non_decreasing(raised(heights, operations)) == optimum


def test_difference_constraints_least_solution():
    for rng in rngs():
        n = rng.randint(2, 4)
        planted = [rng.randint(1, n) for _ in range(n)]
        relations = []
        for _ in range(rng.randint(1, 2 * n)):
            a, b = rng.sample(range(n), 2)
            relations.append([a, rng.choice([r for r, holds in HOLDS.items() if holds(planted[a], planted[b])]), b])
        x = least_solution(n, relations)
        assert all(HOLDS[r](x[a], x[b]) for a, r, b in relations)
        assert sum(x) == min(sum(y) for y in itertools.product(range(1, n + 1), repeat=n)
                             if all(HOLDS[r](y[a], y[b]) for a, r, b in relations))


def test_disinfection_planes():
    for rng in rngs(60):
        sizes = [rng.randint(1, 3) for _ in range(3)]
        cells = [[[int(rng.random() < 0.5) for _ in range(sizes[2])] for _ in range(sizes[1])] for _ in range(sizes[0])]
        planes = [(axis, i) for axis in range(3) for i in range(sizes[axis])]
        ones = [(x, y, z) for x in range(sizes[0]) for y in range(sizes[1]) for z in range(sizes[2]) if cells[x][y][z]]
        brute = min(len(chosen) for chosen in (list(c) for k in range(len(planes) + 1)
                                                for c in itertools.combinations(planes, k))
                    if all(any(cell[axis] == i for axis, i in chosen) for cell in ones))
        boxes = cheapest_cleaning(cells)
        assert sum(map(box_cost, boxes)) == brute and not uncleared(cells, boxes)


def test_disinfection_difference_array():
    cells = [[[1, 0], [0, 1]], [[0, 0], [1, 0]]]  # ones at (1,1,1), (1,2,2), (2,2,1)
    assert not uncleared(cells, [[1, 1, 1, 2, 1, 2], [2, 2, 2, 2, 1, 1]])
    assert uncleared(cells, [[1, 1, 1, 2, 1, 2]])
    assert uncleared(cells, [[1, 2, 1, 1, 1, 2], [1, 1, 2, 2, 2, 2]])


def test_face_right_way():
    for rng in rngs():
        n = rng.randint(1, 7)
        bits = [rng.randint(0, 1) for _ in range(n)]
        if not any(bits):
            continue
        solutions = []
        for k in range(1, n + 1):
            for starts in subsets(n - k + 1):
                flipped = list(bits)
                for s in starts:
                    flipped[s:s + k] = [1 - b for b in flipped[s:s + k]]
                if not any(flipped):
                    solutions.append((len(starts), k))
        k, starts = best_flips(bits)
        assert (len(starts), k) == min(solutions)


def test_fractional_programming():
    for rng in rngs():
        n = rng.randint(3, 7)
        b = [rng.randint(1, n) for _ in range(n)]
        a = [rng.randint(1, 2 * x) for x in b]
        k = rng.randint(2, n - 1)

        def ratio(chosen):
            return Fraction(sum(a[i] for i in chosen), sum(b[i] for i in chosen))

        chosen = best_ratio_subset(a, b, k)
        assert len(set(chosen)) == k
        assert ratio(chosen) == max(ratio(c) for c in itertools.combinations(range(n), k))


def test_fractional_assignment():
    for rng in rngs(60):
        n = rng.randint(1, 5)
        b = [[rng.randint(1, n) for _ in range(n)] for _ in range(n)]
        a = [[rng.randint(1, 2 * x) for x in row] for row in b]

        def ratio(p):
            return Fraction(sum(a[i][p[i]] for i in range(n)), sum(b[i][p[i]] for i in range(n)))

        assert ratio(best_ratio_assignment(a, b)) == max(map(ratio, itertools.permutations(range(n))))


def test_gas_greedy_matches_partition_dp():
    """The POI greedy against an exhaustive DP over partitions of the rooms into served groups."""
    for rng in rngs(200):
        n = rng.randint(1, 8)
        edges = random_tree(n, rng, "shuffle")
        distances = all_pairs_distances(n, edges)
        k, s = rng.randint(1, max(1, max(map(max, distances)))), rng.randint(1, n)
        balls = [sum(1 << u for u in range(n) if distances[v][u] <= k) for v in range(n)]
        fewest = [0] + [n + 1] * ((1 << n) - 1)
        for mask in range(1, 1 << n):
            low, sub = mask & -mask, mask
            while sub:
                if sub & low and bin(sub).count("1") <= s and any(sub & ball == sub for ball in balls):
                    fewest[mask] = min(fewest[mask], fewest[mask ^ sub] + 1)
                sub = (sub - 1) & mask
        assignment = fewest_extinguishers(n, edges, k, s)
        assert all(distances[u][p] <= k for u, p in enumerate(assignment))
        assert extinguishers(assignment, s) == fewest[-1]


def test_hur_warehouse_store():
    for rng in rngs():
        n = rng.randint(1, 7)
        arrivals, demands = [rng.randint(0, n) for _ in range(n)], [rng.randint(1, n) for _ in range(n)]

        def feasible(days):
            stock = 0
            for d in range(n):
                stock += arrivals[d] - demands[d] * (d in days)
                if stock < 0:
                    return False
            return True

        days = most_customers(arrivals, demands)
        assert feasible(set(days)) and len(days) == max(len(d) for d in subsets(n) if feasible(set(d)))


def test_king_sorting():
    for rng in rngs():
        n = rng.randint(1, 6)
        pairs = [[rng.randint(1, 10), rng.randint(1, 10)] for _ in range(n)]
        king = rng.randint(1, 10)
        order = sorted(range(n), key=lambda i: pairs[i][0] * pairs[i][1])
        assert largest_reward(king, pairs, order) == min(largest_reward(king, pairs, list(p))
                                                         for p in itertools.permutations(range(n)))


def test_knapsack():
    for rng in rngs():
        n = rng.randint(1, 8)
        weights = [rng.randint(1, n) for _ in range(n)]
        values = [rng.randint(1, 2 * w) for w in weights]
        capacity = rng.randint(min(weights), sum(weights))
        chosen = best_items(weights, values, capacity)
        assert sum(weights[i] for i in chosen) <= capacity
        assert sum(values[i] for i in chosen) == max(sum(values[i] for i in c) for c in subsets(n)
                                                     if sum(weights[i] for i in c) <= capacity)


def test_maf_mafia_both_directions():
    for rng in rngs(300):
        n = rng.randint(1, 6)
        targets = [rng.randrange(n) for _ in range(n)]
        outcomes = [deaths(targets, list(p)) for p in itertools.permutations(range(n))]
        fewest, most = fewest_deaths_order(targets), most_deaths_order(targets)
        assert sorted(fewest) == sorted(most) == list(range(n))
        assert deaths(targets, fewest) == min(outcomes) and deaths(targets, most) == max(outcomes)


def test_max_non_adjacent():
    for rng in rngs():
        n = rng.randint(4, 9)
        values, k = [rng.randint(1, n) for _ in range(n)], rng.randint(2, n // 2)
        chosen = best_positions(values, k)
        assert len(chosen) == k and all(b - a > 1 for a, b in zip(chosen, chosen[1:]))
        spread = [c for c in itertools.combinations(range(n), k) if all(b - a > 1 for a, b in zip(c, c[1:]))]
        assert sum(values[i] for i in chosen) == max(sum(values[i] for i in c) for c in spread)


def test_max_tree_constrained_permutation():
    for rng in rngs():
        n = rng.randint(1, 6)
        weights = [rng.randint(1, n) for _ in range(n)]
        parents = [rng.randint(0, i - 1) for i in range(1, n + 1)]

        def respects(order):
            position = {v: p for p, v in enumerate(order)}
            return all(a == 0 or position[a] < position[i] for i, a in enumerate(parents, start=1))

        order = best_order(parents, weights)
        assert respects(order)
        assert order_value(weights, order) == max(order_value(weights, list(p))
                                                  for p in itertools.permutations(range(1, n + 1)) if respects(p))


def test_split_score_is_order_free_and_optimal():
    for rng in rngs():
        n = rng.randint(4, 8)
        values, k = [rng.randint(0, n) for _ in range(n)], rng.randint(2, n - 2)
        assert split_score(values, best_cuts(values, k)) == max(split_score(values, [c + 1 for c in cuts])
                                                                for cuts in itertools.combinations(range(n - 1), k))
    values, gained, blocks = [3, 1, 4, 1, 5], 0, [(0, 5)]
    for cut in (3, 1):  # simulate the splits one by one
        a, b = next(block for block in blocks if block[0] < cut < block[1])
        gained += sum(values[a:cut]) * sum(values[cut:b])
        blocks = [block for block in blocks if block != (a, b)] + [(a, cut), (cut, b)]
    assert gained == split_score(values, [3, 1])


def test_maximum_independent_set_grid():
    for rng in rngs(30):
        rows, columns = rng.randint(1, 3), rng.randint(1, 4)
        values = [[rng.randint(1, 5) for _ in range(columns)] for _ in range(rows)]
        selection = best_selection(values)
        cells = [(r, c) for r in range(rows) for c in range(columns)]
        best = 0
        for mask in range(1 << len(cells)):
            picked = {cells[i] for i in range(len(cells)) if mask >> i & 1}
            if all((r + 1, c) not in picked and (r, c + 1) not in picked for r, c in picked):
                best = max(best, sum(values[r][c] for r, c in picked))
        assert selection_value(values, selection) == best
        assert reward("MaximumIndependentSetGrid", {"values": values, "optimum": best}, "\n".join(selection)) == 1.0


def test_max_minimum_after_interval_addition():
    for rng in rngs():
        top = rng.randint(3, 7)
        n, m = rng.randint(3, top), rng.randint(3, top)
        k, add = rng.randint(2, m - 1), rng.randint(1, top)
        values = [rng.randint(1, top) for _ in range(n)]
        intervals = [sorted((rng.randint(1, n), rng.randint(1, n))) for _ in range(m)]
        chosen = best_intervals(values, intervals, k, add)
        assert len(set(chosen)) == k
        assert minimum_after(values, intervals, chosen, add) == max(
            minimum_after(values, intervals, list(c), add) for c in itertools.combinations(range(m), k))


def test_max_mult_split():
    for rng in rngs():
        digits = "".join(str(rng.randint(1, 9)) for _ in range(rng.randint(3, 8)))
        k = rng.randint(2, len(digits) - 1)
        pieces = best_parts(digits, k + 1)
        assert "".join(map(str, pieces)) == digits and len(pieces) == k + 1
        assert product(pieces) == max(
            product([int(digits[a:b]) for a, b in zip((0,) + cuts, cuts + (len(digits),))])
            for cuts in itertools.combinations(range(1, len(digits)), k))


def test_max_no_conflicting_bombs():
    for rng in rngs(60):
        rows, columns = rng.randint(1, 3), rng.randint(1, 4)
        grid = ["".join(rng.choice("*x#") for _ in range(columns)) for _ in range(rows)]
        placed = most_bombs(grid)
        empty = [(r, c) for r in range(rows) for c in range(columns) if grid[r][c] == "*"]

        def clear(a, b):  # no wall between two cells of one row or column
            (r1, c1), (r2, c2) = sorted([a, b])
            if r1 == r2:
                return "#" not in grid[r1][c1:c2]
            return c1 == c2 and all(grid[r][c1] != "#" for r in range(r1, r2))

        best = max(len(s) for s in (list(c) for k in range(len(empty) + 1) for c in itertools.combinations(empty, k))
                   if not any(clear(a, b) for a, b in itertools.combinations(s, 2)))
        data = {"grid": grid, "optimum": best}
        assert sum(row.count("B") for row in placed) == best
        assert reward("MaxNoConflictingBombs", data, "\n".join(placed)) == 1.0


def test_max_permutation():
    for rng in rngs():
        numbers = ["".join(rng.choice("12") for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 6))]
        best = max("".join(numbers[i] for i in p) for p in itertools.permutations(range(len(numbers))))
        assert "".join(numbers[i] for i in largest_order(numbers)) == best


def test_max_segment_coverage():
    for rng in rngs():
        n = rng.randint(1, 7)
        segments = [sorted((rng.randint(0, 2 * n), rng.randint(0, 2 * n))) for _ in range(n)]
        limits = [[p, rng.randint(0, 2)] for p in sorted(rng.sample(range(2 * n + 1), rng.randint(1, 2 * n + 1)))]
        chosen = most_segments(segments, limits)
        assert coverage_ok(segments, chosen, limits)
        assert len(chosen) == max(len(c) for c in subsets(n) if coverage_ok(segments, c, limits))


def test_max_sum_lds_every_lis_array():
    for n in range(1, 7):
        best: dict[tuple, int] = {}
        for p in itertools.permutations(range(1, n + 1)):
            key = tuple(lis_ending(list(p)))
            best[key] = max(best.get(key, 0), sum(lds_starting(list(p))))
        for lis, value in best.items():
            permutation = best_permutation(list(lis))
            assert tuple(lis_ending(permutation)) == lis and sum(lds_starting(permutation)) == value


def test_min_conversion_to_cycle():
    for rng in rngs(300):
        n = rng.randint(1, 6)
        successor, costs = [rng.randrange(n) for _ in range(n)], [rng.randint(1, n) for _ in range(n)]
        result = cheapest_cycle(successor, costs)
        assert is_single_cycle(result)
        cycles = [list(p) for p in itertools.permutations(range(n)) if is_single_cycle(list(p))]
        assert conversion_cost(successor, costs, result) == min(conversion_cost(successor, costs, p) for p in cycles)


def test_min_cost_reducing_lnds():
    for rng in rngs():
        n = rng.randint(1, 8)
        values, costs = [rng.randint(1, 2 * n) for _ in range(n)], [rng.randint(1, n) for _ in range(n)]
        longest = longest_non_decreasing(values)

        def reduces(erased):
            return longest_non_decreasing([v for i, v in enumerate(values) if i not in erased]) < longest

        erased = cheapest_erasure(values, costs)
        assert reduces(set(erased))
        assert sum(costs[i] for i in erased) == min(sum(costs[i] for i in e) for e in subsets(n) if reduces(set(e)))


def test_min_cost_tree_coverage():
    for rng in rngs():
        n = rng.randint(1, 8)
        edges = random_tree(n, rng, "shuffle")
        distances = all_pairs_distances(n, edges)
        required = [v for v in range(n) if rng.random() < 0.5] or [0]
        reach, weights = rng.randint(0, 3), [rng.randint(1, n) for _ in range(n)]

        def covers(chosen):
            return all(any(distances[v][r] <= reach for v in chosen) for r in required)

        chosen = cheapest_cover(n, edges, required, reach, weights)
        assert covers(chosen)
        assert sum(weights[v] for v in chosen) == min(sum(weights[v] for v in c) for c in subsets(n) if covers(c))


# -- reward rules ------------------------------------------------------------------------------


def test_index_answers_invalid_and_partial():
    data = {"positions": [0, 1, 10, 11], "K": 2, "optimum": 2}
    assert reward("Axis_KCenter", data, "0 2") == 1.0
    assert reward("Axis_KCenter", data, "0 1") == pytest.approx((2 / 19) ** 5)
    assert reward("Axis_KCenter", data, "0 0") == -0.5
    assert reward("Axis_KCenter", data, "0") == -0.5
    assert reward("Axis_KCenter", data, "0 4") == -0.5
    assert reward("Axis_KCenter", data, "zero two") == -1.0
    knapsack = {"W": [2, 2, 3], "V": [3, 3, 5], "capacity": 4, "optimum": 6}
    assert reward("Knapsack", knapsack, "1 0") == 1.0
    assert reward("Knapsack", knapsack, "2") == pytest.approx((5 / 6) ** 5)
    assert reward("Knapsack", knapsack, "0 2") == -0.5  # over capacity
    assert reward("Knapsack", knapsack, "") == 0.0
    adjacent = {"A": [5, 5, 1, 5], "K": 2, "optimum": 10}
    assert reward("Max_NonAdjacent_KElementSum", adjacent, "0 3") == 1.0
    assert reward("Max_NonAdjacent_KElementSum", adjacent, "0 1") == -0.5
    assert reward("Max_NonAdjacent_KElementSum", adjacent, "0 2") == pytest.approx((6 / 10) ** 5)


def test_bez_direction_and_zero_optimum():
    data = {"caps": [2, 2, 0], "edges": [[0, 1, 2]], "maximize": False, "optimum": 2}
    assert reward("BEZMinimalistSecurity", data, "0 2 0") == 1.0
    assert reward("BEZMinimalistSecurity", data, "1 1 0") == 1.0
    assert reward("BEZMinimalistSecurity", data, "2 1 0") == -0.5  # breaks the equation
    assert reward("BEZMinimalistSecurity", data, "0 2 1") == -0.5  # above the cap
    assert reward("BEZMinimalistSecurity", data, "0 2") == -0.5
    free = {"caps": [3], "edges": [], "optimum": 0}
    assert reward("BEZMinimalistSecurity", {**free, "maximize": False}, "0") == 1.0
    assert reward("BEZMinimalistSecurity", {**free, "maximize": False}, "1") == 0.0
    assert reward("BEZMinimalistSecurity", {**free, "maximize": True, "optimum": 3}, "1") == pytest.approx((1 / 3) ** 5)


def test_difference_constraints_two_part_reward():
    data = {"N": 3, "relations": [[0, "<", 1], [1, "<=", 2], [2, "=", 1]], "optimum": 5}
    assert reward("DifferenceConstraintSystemDAG", data, "1 2 2") == 1.0
    assert reward("DifferenceConstraintSystemDAG", data, "1 3 3") == pytest.approx(0.5 + 0.5 * (5 / 7) ** 5)
    assert reward("DifferenceConstraintSystemDAG", data, "2 1 1") == pytest.approx(0.5 * (2 / 3) ** 5)
    assert reward("DifferenceConstraintSystemDAG", data, "0 1 1") == 0.0  # not positive
    assert reward("DifferenceConstraintSystemDAG", data, "1 2") == -1.0  # wrong length is a format error


def test_face_right_way_two_part_reward():
    data = {"bits": [1, 1, 0, 0], "K": 2, "M": 1}
    assert reward("FaceRightWay", data, "1 2") == 1.0
    assert reward("FaceRightWay", data, "1 1\n2 2") == pytest.approx(0.5 * (1 / 2) ** 5)
    assert reward("FaceRightWay", data, "1 3\n3 3") == -0.5  # unequal lengths
    assert reward("FaceRightWay", data, "1 3") == -0.2  # not all zero
    assert reward("FaceRightWay", data, "") == -0.2
    assert reward("FaceRightWay", data, "0 1") == -0.5
    longer = {"bits": [1, 0, 0, 1], "K": 1, "M": 2}
    assert reward("FaceRightWay", longer, "1 3\n2 4") == pytest.approx(0.5 + 0.5 * (1 / 3) ** 5)


def test_disinfection_rewards():
    data = {"cells": [[[1, 1], [0, 0]], [[1, 1], [0, 0]]], "optimum": 1}  # the y = 1 plane
    assert reward("Disinfection", data, "1 2 1 1 1 2") == 1.0
    assert reward("Disinfection", data, "1 1 1 1 1 2\n2 2 1 1 1 2") == pytest.approx(0.5 ** 5)
    assert reward("Disinfection", data, "1 2 1 2 1 2") == pytest.approx(0.5 ** 5)  # min side 2 costs 2
    assert reward("Disinfection", data, "1 1 1 1 1 2") == -0.2
    assert reward("Disinfection", data, "2 1 1 1 1 2") == -0.5
    assert reward("Disinfection", data, "1 2 1 1 1") == -1.0


def test_grids_shape_and_validity():
    data = {"grid": ["RL", "RL"], "optimum": 0}
    assert reward("CirculatingGrid", data, "RL\nRL") == 1.0
    assert reward("CirculatingGrid", data, "R L\nR L") == 1.0
    assert reward("CirculatingGrid", data, "DL\nRU") == 0.0  # one cycle through all cells, but 2 changes
    assert reward("CirculatingGrid", data, "DL\nRL") == -0.5  # a cell entered twice
    assert reward("CirculatingGrid", data, "RLX\nRL") == -1.0
    assert reward("CirculatingGrid", data, "RL") == -1.0
    bombs = {"grid": ["**", "x*"], "optimum": 2}
    assert reward("MaxNoConflictingBombs", bombs, "B*\nxB") == 1.0
    assert reward("MaxNoConflictingBombs", bombs, "B*\nx*") == pytest.approx(0.5 ** 3)
    assert reward("MaxNoConflictingBombs", bombs, "BB\nx*") == -0.5  # same row, no wall
    assert reward("MaxNoConflictingBombs", bombs, "B*\nBB") == -0.5  # soft stone replaced
    assert reward("MaxNoConflictingBombs", bombs, "B*\nx") == -1.0
    assert reward("MaxNoConflictingBombs", {"grid": ["x#"], "optimum": 0}, "x#") == 1.0
    independent = {"values": [[1, 2], [3, 1]], "optimum": 5}
    assert reward("MaximumIndependentSetGrid", independent, "01\n10") == 1.0
    assert reward("MaximumIndependentSetGrid", independent, "10\n01") == pytest.approx((2 / 5) ** 3)
    assert reward("MaximumIndependentSetGrid", independent, "11\n00") == -0.5
    assert reward("MaximumIndependentSetGrid", independent, "12\n00") == -1.0


def test_permutation_answers():
    king = {"king": [1, 1], "pairs": [[2, 3], [7, 4], [4, 6]], "optimum": 2}
    assert reward("KingSorting", king, "1 3 2") == 1.0
    assert reward("KingSorting", king, "2 3 1") == pytest.approx((2 / 9) ** 5)  # rewards 1//4, 7//6, 28//3
    assert reward("KingSorting", king, "1 1 2") == -0.5
    assert reward("KingSorting", {**king, "optimum": 0, "pairs": [[1, 5]]}, "1") == 1.0
    maf = {"targets": [1, 2, 3, 0], "maximize": True, "optimum": 3}
    assert reward("MafMafia", maf, "2 1 0 3") == 1.0
    assert reward("MafMafia", maf, "0 2 1 3") == pytest.approx((2 / 3) ** 5)
    assert reward("MafMafia", {**maf, "maximize": False, "optimum": 2}, "0 2 1 3") == 1.0
    assert reward("MafMafia", {**maf, "maximize": False, "optimum": 2}, "2 1 0 3") == pytest.approx((2 / 3) ** 5)
    assert reward("MafMafia", maf, "0 1 2") == -0.5


def test_constrained_permutations():
    tree = {"W": [1, 5, 2], "A": [0, 1, 1], "optimum": 1 + 2 * 2 + 5 * 3}
    assert reward("Max_TreeConstrainedPermutation_Weight", tree, "1 3 2") == 1.0
    assert reward("Max_TreeConstrainedPermutation_Weight", tree, "1 2 3") == pytest.approx((17 / 20) ** 5)
    assert reward("Max_TreeConstrainedPermutation_Weight", tree, "2 1 3") == -0.5  # 2 before its predecessor 1
    lds = {"A": [1, 1, 2, 2], "optimum": 7}
    assert reward("MaxSumLDS", lds, "4 1 3 2") == 1.0
    assert reward("MaxSumLDS", lds, "2 1 4 3") == pytest.approx((6 / 7) ** 5)
    assert reward("MaxSumLDS", lds, "1 2 3 4") == -0.2  # its A is 1 2 3 4
    assert reward("MaxSumLDS", lds, "1 1 3 4") == -0.5


def test_cycle_and_cover_rewards():
    cycle = {"A": [0, 0, 1], "C": [1, 5, 2], "optimum": 1}
    assert reward("MinConversionToCycleCost", cycle, "2 0 1") == 1.0  # only A[0] changes
    assert reward("MinConversionToCycleCost", cycle, "1 2 0") == pytest.approx((1 / 8) ** 3)
    assert reward("MinConversionToCycleCost", cycle, "0 0 1") == -0.2
    assert reward("MinConversionToCycleCost", cycle, "3 0 1") == -0.5
    assert reward("MinConversionToCycleCost", {"A": [1, 0], "C": [1, 1], "optimum": 0}, "1 0") == 1.0
    cover = {"N": 3, "edges": [[0, 1], [1, 2]], "required": [0, 2], "D": 1, "W": [1, 3, 1], "optimum": 2}
    assert reward("MinCostTreeCoverage", cover, "0 2") == 1.0
    assert reward("MinCostTreeCoverage", cover, "1") == pytest.approx((2 / 3) ** 3)
    assert reward("MinCostTreeCoverage", cover, "0") == -0.2
    assert reward("MinCostTreeCoverage", cover, "0 0 2") == -0.5
    lnds = {"A": [1, 2, 3], "B": [3, 1, 2], "optimum": 1}
    assert reward("MinCostReducingLNDS", lnds, "1") == 1.0
    assert reward("MinCostReducingLNDS", lnds, "0") == pytest.approx((1 / 3) ** 3)
    assert reward("MinCostReducingLNDS", lnds, "") == -0.2
    assert reward("MinCostReducingLNDS", lnds, "5") == -0.5


def test_sequence_answers():
    cleaning = {"array": [1, 1, 2, 2], "optimum": 2}  # batches [1 1][2 2]
    assert reward("CleaningUp", cleaning, "2 4") == 1.0
    assert reward("CleaningUp", cleaning, "4") == pytest.approx((2 / 4) ** 5)
    assert reward("CleaningUp", cleaning, "2 3") == -0.5
    assert reward("CleaningUp", cleaning, "3 2 4") == -0.5
    corn = {"heights": [2, 1, 1], "K": 1, "optimum": 3}
    assert reward("Cornfield", corn, "2 3") == 1.0
    assert reward("Cornfield", corn, "1 1") == pytest.approx((2 / 3) ** 5)
    assert reward("Cornfield", corn, "") == pytest.approx((2 / 3) ** 5)
    assert reward("Cornfield", corn, "1 3\n2 3") == -0.5  # more than K operations
    assert reward("Cornfield", corn, "0 2") == -0.5
    assert reward("Cornfield", corn, "2") == -1.0
    split = {"digits": "1234", "K": 1, "optimum": 123 * 4}
    assert reward("MaxMultSplit", split, "123 4") == 1.0
    assert reward("MaxMultSplit", split, "12 34") == pytest.approx((408 / 492) ** 3)
    assert reward("MaxMultSplit", split, "12 43") == -0.5
    assert reward("MaxMultSplit", split, "1 2 34") == -0.5
    store = {"A": [2, 0, 1], "B": [2, 1, 1], "optimum": 2}
    assert reward("HURWarehouseStore", store, "1") == pytest.approx(0.5 ** 5)
    assert reward("HURWarehouseStore", store, "2 3") == 1.0
    assert reward("HURWarehouseStore", store, "1 2") == -0.5  # nothing left on day 2
    assert reward("HURWarehouseStore", store, "1 1") == -0.5


def test_ratio_answers():
    fractional = {"A": [4, 1, 3], "B": [2, 1, 3], "K": 2, "optimum": [5, 3]}
    assert reward("FractionalProgramming", fractional, "1 0") == 1.0
    assert reward("FractionalProgramming", fractional, "0 2") == pytest.approx((Fraction(7, 5) / Fraction(5, 3)) ** 5)
    assert reward("FractionalProgramming", fractional, "1 1") == -0.5
    matching = {"A": [[2, 1], [1, 2]], "B": [[1, 1], [1, 1]], "optimum": [2, 1]}
    assert reward("FractionalProgramming_BipartiteGraphMatching", matching, "0 1") == 1.0
    assert reward("FractionalProgramming_BipartiteGraphMatching", matching, "1 0") == pytest.approx(0.5 ** 5)
    assert reward("FractionalProgramming_BipartiteGraphMatching", matching, "0 0") == -0.5
    numbers = {"numbers": ["2", "21"], "optimum": "221"}
    assert reward("MaxPermutation", numbers, "0 1") == 1.0
    assert reward("MaxPermutation", numbers, "1 0") == pytest.approx((212 / 221) ** 5)
    split = {"A": [1, 2, 3, 4], "K": 2, "optimum": 33}  # blocks [1 2][3][4]: 3*3 + 3*4 + 3*4
    assert reward("MaxDifferentGroupPairDivision", split, "3 2") == 1.0
    assert reward("MaxDifferentGroupPairDivision", split, "1 3") == pytest.approx((29 / 33) ** 5)
    assert reward("MaxDifferentGroupPairDivision", split, "1 1") == -0.5
    assert reward("MaxDifferentGroupPairDivision", split, "4 1") == -0.5
    coverage = {"segments": [[0, 2], [1, 3], [3, 4]], "limits": [[2, 1]], "optimum": 2}
    assert reward("MaxSegmentCoverageConstraint", coverage, "0 2") == 1.0
    assert reward("MaxSegmentCoverageConstraint", coverage, "2") == pytest.approx(0.5 ** 5)
    assert reward("MaxSegmentCoverageConstraint", coverage, "0 1") == -0.5
    interval = {"values": [1, 5], "intervals": [[1, 1], [2, 2], [1, 2]], "K": 2, "add": 3, "optimum": 7}
    assert reward("MaxMinimum_AfterIntervalAddition", interval, "1 3") == 1.0
    assert reward("MaxMinimum_AfterIntervalAddition", interval, "2 3") == pytest.approx((4 / 7) ** 5)
    assert reward("MaxMinimum_AfterIntervalAddition", interval, "0 3") == -0.5


def test_gas_rewards():
    data = {"N": 3, "edges": [[0, 1], [1, 2]], "K": 1, "S": 3, "optimum": 1}
    assert reward("GasFireExtinguishers", data, "1 1 1") == 1.0
    assert reward("GasFireExtinguishers", data, "0 1 2") == pytest.approx((1 / 3) ** 3)
    assert reward("GasFireExtinguishers", data, "2 1 1") == -0.5  # room 0 is 2 corridors from room 2
    assert reward("GasFireExtinguishers", data, "1 1") == -0.5
