"""Targeted tests for the C16 environments: solvers against brute force, reward rules by hand."""

import functools
import itertools
import math
import random

import pytest

from rlve_jax.gym.environments.euclid_game import first_player_wins
from rlve_jax.gym.environments.gcd_one_counting import coprime_pairs
from rlve_jax.gym.environments.hamiltonian_path import cheapest_covering_walk
from rlve_jax.gym.environments.lamp_changing import lamp_after
from rlve_jax.gym.environments.largest_convex_polygon import cross, hull_size, largest_convex_subset
from rlve_jax.gym.environments.path_no_going_back_counting import count_walks
from rlve_jax.gym.environments.spiral_matrix import spiral
from rlve_jax.gym.environments.subsequence_reversal_lnds import best_lnds_after_reversal
from rlve_jax.gym.environments.undamaged_submatrix_counting import count_all_ones_submatrices
from rlve_jax.gym.environments.wyr_leveling_ground import min_operations
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem

RNG = random.Random(0)


def verdict(name, data, answer, threshold=1.0):
    problem = Problem(name, 0, 0, "", {}, data, threshold)
    return registry.make(name).verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS)


def test_sorting_rewards():
    data = {"array": [3, 1, 2], "gold": [1, 2, 3]}
    assert verdict("Sorting", data, "1 2 3").reward == 1.0
    assert verdict("Sorting", data, "1 3 2").reward == pytest.approx((1 / 3) ** 10)
    assert verdict("Sorting", data, "1 2").reward == -0.5
    assert verdict("Sorting", data, "1, 2, 3").reward == -1.0


def test_division_phrasing_reads_the_right_way_round():
    env = registry.make("Division")
    for seed in range(40):
        problem = env.generate(2, seed)
        if "fit into" in problem.prompt:
            a, b = problem.data["a"], problem.data["b"]
            assert f"does {b} fit into {a}" in problem.prompt
            return
    pytest.fail("phrasing not drawn")


def test_euclid_game_against_game_tree():
    @functools.cache
    def wins(x, y):
        x, y = max(x, y), min(x, y)
        return y > 0 and any(not wins(x - k * y, y) for k in range(1, x // y + 1))

    assert all(wins(x, y) == first_player_wins(x, y) for x in range(1, 50) for y in range(1, 50))
    assert verdict("EuclidGame", {"reference": "Stan"}, "stan").reward == -0.5
    assert verdict("EuclidGame", {"reference": "Stan"}, "Ollie").reward == 0.0


def test_gcd_one_counting():
    assert all(coprime_pairs(n, m) == sum(math.gcd(a, b) == 1 for a in range(1, n + 1) for b in range(1, m + 1))
               for n in range(1, 25) for m in range(1, 25))
    assert verdict("GCDOne_Counting", {"reference": "10"}, "5").reward == pytest.approx(0.5**10)
    assert verdict("GCDOne_Counting", {"reference": "10"}, "0").reward == -1.0


def test_lamp_changing_closed_form_matches_simulation():
    for _ in range(200):
        n, t = RNG.randint(3, 9), RNG.randint(0, 40)
        lamps = [RNG.randint(0, 1) for _ in range(n)]
        state = list(lamps)
        for _ in range(t):
            state = [state[i] ^ state[(i + 1) % n] for i in range(n)]
        k = RNG.randrange(n)
        assert lamp_after(lamps, k, t) == state[k]


def test_spiral():
    assert spiral([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]
    assert spiral([[1, 2], [3, 4], [5, 6]]) == [1, 2, 4, 6, 5, 3]


def test_undamaged_submatrices_against_brute_force():
    for _ in range(200):
        n, m = RNG.randint(1, 5), RNG.randint(1, 5)
        grid = [[RNG.randint(0, 1) for _ in range(m)] for _ in range(n)]
        brute = sum(all(grid[r][c] for r in range(r1, r2 + 1) for c in range(c1, c2 + 1))
                    for r1 in range(n) for r2 in range(r1, n) for c1 in range(m) for c2 in range(c1, m))
        assert count_all_ones_submatrices(grid) == brute
    assert verdict("UndamagedSubmatrixCounting", {"reference": "0"}, "0").reward == 1.0
    assert verdict("UndamagedSubmatrixCounting", {"reference": "4"}, "0").reward == 0.0


def test_subsequence_reversal_against_brute_force():
    def lnds(a):
        best = []
        for i, v in enumerate(a):
            best.append(1 + max([best[j] for j in range(i) if a[j] <= v], default=0))
        return max(best)

    for _ in range(150):
        n = RNG.randint(1, 7)
        values = [RNG.randint(1, n) for _ in range(n)]
        brute = 0
        for k in range(n + 1):
            for positions in itertools.combinations(range(n), k):
                b = list(values)
                for i, v in zip(positions, [values[p] for p in positions][::-1]):
                    b[i] = v
                brute = max(brute, lnds(b))
        assert best_lnds_after_reversal(values) == brute


def test_path_no_going_back_against_enumeration():
    def brute(n, edges, t):
        arcs = [tuple(e) for e in edges] + [(v, u) for u, v in edges]

        def walks(prev, cur, left):
            if left == 0:
                return int(cur == n - 1)
            return sum(walks(cur, w, left - 1) for x, w in arcs if x == cur and w != prev)

        return walks(None, 0, t) % 10000

    for _ in range(80):
        n = RNG.randint(2, 5)
        pairs = [[u, v] for u in range(n) for v in range(u + 1, n)]
        edges = RNG.sample(pairs, RNG.randint(1, len(pairs)))
        t = RNG.randint(1, 7)
        assert count_walks(n, edges, t) == brute(n, edges, t)
    assert verdict("Path_NoGoingBack_Counting", {"reference": "5"}, "10000").reward == -0.5


def test_wyr_leveling_ground_against_search():
    def brute(heights, a, b):
        diffs = [h - p for p, h in zip([0] + heights, heights + [0])]
        options = [[(x, y) for x in range(-12, 13) for y in range(-12, 13) if x * a + y * b == d] for d in diffs]
        return min(sum(abs(x) + abs(y) for x, y in combo) // 2 for combo in itertools.product(*options)
                   if sum(x for x, _ in combo) == 0 and sum(y for _, y in combo) == 0)

    for _ in range(150):
        n, a, b = RNG.randint(1, 3), RNG.randint(1, 5), RNG.randint(1, 5)
        heights = [RNG.randint(-2, 2) * a + RNG.randint(-2, 2) * b for _ in range(n)]
        assert min_operations(heights, a, b) == brute(heights, a, b)


def test_largest_convex_polygon_solver_and_rewards():
    for _ in range(100):
        n, points = RNG.randint(3, 8), []
        while len(points) < n:
            p = [RNG.randint(0, 10), RNG.randint(0, 10)]
            if p not in points and all(cross(a, b, p) for i, a in enumerate(points) for b in points[i + 1:]):
                points.append(p)
        brute = max(k for k in range(3, n + 1) for c in itertools.combinations(points, k) if hull_size(list(c)) == k)
        chosen = largest_convex_subset(points)
        assert len(chosen) == brute and hull_size([points[i] for i in chosen]) == brute
    square_and_center = {"points": [[0, 0], [4, 0], [4, 4], [0, 4], [1, 2]], "optimum": 4}
    assert verdict("LargestConvexPolygon", square_and_center, "1 2 3 4").reward == 1.0
    assert verdict("LargestConvexPolygon", square_and_center, "1 2 3").reward == pytest.approx((3 / 4) ** 5)
    assert verdict("LargestConvexPolygon", square_and_center, "1 2 3 4 5").reward == -0.2  # 5 is inside
    assert verdict("LargestConvexPolygon", square_and_center, "1 1 2").reward == -0.5


def test_shortest_and_hamiltonian_rewards():
    edges = [[0, 1, 1], [1, 2, 1], [0, 2, 5], [2, 0, 1]]
    assert verdict("ShortestPath", {"N": 3, "edges": edges, "optimum": 2}, "0 1 2").reward == 1.0
    assert verdict("ShortestPath", {"N": 3, "edges": edges, "optimum": 2}, "0 2").reward == pytest.approx(0.4**5)
    assert verdict("ShortestPath", {"N": 3, "edges": edges, "optimum": 2}, "0 2 0 2").reward == pytest.approx(
        (2 / 11) ** 5)
    assert verdict("ShortestPath", {"N": 3, "edges": edges, "optimum": 2}, "1 2").reward == -0.5
    optimum, walk = cheapest_covering_walk(3, edges)
    assert optimum == 2 and sorted(walk) == [0, 1, 2]
    assert verdict("HamiltonianPath", {"N": 3, "edges": edges, "optimum": 2}, "2 0 1").reward == 1.0
    assert verdict("HamiltonianPath", {"N": 3, "edges": edges, "optimum": 2}, "0 1").reward == -0.5


def test_sat_and_pcp_rewards():
    data = {"N": 2, "clauses": [[[0, 1], [1, 1]], [[0, 0], [1, 0]]]}
    assert verdict("SAT", data, "1 0").reward == 1.0
    assert verdict("SAT", data, "1 1").reward == pytest.approx(0.5**10)
    assert verdict("SAT", data, "1 2").reward == -1.0
    pcp = {"pairs": [["ab", "a"], ["a", "ba"]]}
    assert verdict("PCPPermutation", pcp, "0 1").reward == 1.0
    assert verdict("PCPPermutation", pcp, "1 0").reward == pytest.approx((1 / 3) ** 10)
    assert verdict("PCPPermutation", pcp, "0 0").reward == -0.5
