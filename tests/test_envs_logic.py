"""Targeted tests for the logic-puzzle, string and geometry batch: reward structure and exact solvers."""

import itertools
import math
import random
import time

import pytest

from rlve_jax.gym.environments.cho_hamsters import shortest_length
from rlve_jax.gym.environments.knights_and_knaves import count_solutions, is_true, random_statement
from rlve_jax.gym.environments.largest_rectangle_among_points import best_rectangle, rectangle_area2
from rlve_jax.gym.environments.las_laser import most_segments_hit
from rlve_jax.gym.environments.salad_bar import longest_good
from rlve_jax.gym.environments.smallest_circle import circle_from, enclosing_circle
from rlve_jax.gym.environments.square_undamaged_point_counting import count_squares
from rlve_jax.gym.environments.virus_synthesis import build_cost
from rlve_jax.gym.environments.visible_line import visible_lines
from rlve_jax.gym.environments.zero_prefix_subset_counting import prefix_free_subsets
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem


def reward(name: str, data: dict, answer: str) -> float:
    """The verifier's reward for a hand-made instance."""
    env = registry.make(name)
    problem = Problem(name, 0, 0, "", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


def accepted(name: str, data: dict, answer: str) -> bool:
    env = registry.make(name)
    problem = Problem(name, 0, 0, "", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).accuracy


# --- partial credit, invalid answers and format errors on hand-made instances -----------------------


def test_addition_table_rewards():
    data = {"N": 3, "digits": [2, 0, 1]}
    assert reward("AdditionTable", data, "3 2 0 1") == 1.0
    assert reward("AdditionTable", data, "3 2 1 0") == pytest.approx((1 / 3) ** 3)
    assert reward("AdditionTable", data, "4 2 0 1") == 0.0  # wrong base
    assert reward("AdditionTable", data, "3 2 0") == -0.5  # wrong count
    assert reward("AdditionTable", data, "three") == -1.0


def test_binario_rewards():
    data = {"puzzle": ["0*", "**"], "row_ones": [1, 1], "col_ones": [1, 1], "reference": "01\n10"}
    assert reward("Binario", data, "01\n10") == 1.0
    assert reward("Binario", data, "01\n11") == pytest.approx((2 / 4) ** 10)  # row 1 and column 1 miss
    assert reward("Binario", data, "11\n10") == -0.5  # changes the given 0
    triple = {"puzzle": ["***"], "row_ones": [2], "col_ones": [0, 1, 1], "reference": "011"}
    assert reward("Binario", triple, "111") == -0.5
    assert reward("Binario", data, "012\n10") == -1.0


def test_campfire_party_rewards():
    # wished circle 0-2-1-3 (0 next to 2 and 3, ...); seating 0 1 2 3 needs students 1 and 2 swapped: cost 2
    data = {"N": 4, "wishes": [[2, 3], [2, 3], [0, 1], [0, 1]], "optimum": 2, "target": [0, 2, 1, 3]}
    assert reward("CampfireParty", data, "1 2") == 1.0
    assert reward("CampfireParty", data, "1 2\n3") == pytest.approx((2 / 3) ** 3)  # a useless operation costs
    assert reward("CampfireParty", data, "0 1") == -0.2  # legal but the wishes are not met
    assert reward("CampfireParty", data, "1 1") == -0.5  # a student twice in one operation
    assert reward("CampfireParty", data, "1 9") == -0.5


def test_cryptarithmetic_partial_credit():
    # base 3, symbols d0=1, d1=2, d2=0: 12 + 21 = 110 (in base 3), written with symbols
    data = {"N": 3, "addends": [[1, 0], [0, 1]], "sum": [2, 0, 0], "reference": "1 2 0"}
    assert reward("Cryptarithmetic", data, "1 2 0") == 1.0
    assert reward("Cryptarithmetic", data, "1 1 0") == -0.5  # not a permutation
    assert 0 <= reward("Cryptarithmetic", data, "2 1 0") < 1


def test_constraint_fraction_rewards():
    dcs = {"N": 2, "constraints": [[0, 1, 0], [1, 0, 0], [0, 1, -5]], "reference": "0 0"}
    assert reward("DifferenceConstraintSystem", dcs, "0 0") == pytest.approx((2 / 3) ** 5)
    assert reward("DifferenceConstraintSystem", dcs, "0") == -1.0
    ip = {"N": 2, "inequalities": [[[1, 0], 1], [[0, -1], 0]], "reference": "1 0"}
    assert reward("IntegerProgramming", ip, "1 0") == 1.0
    assert reward("IntegerProgramming", ip, "0 0") == pytest.approx(0.5 ** 5)
    two_sat = {"N": 2, "clauses": [[[0, True], [1, True]], [[0, False], [1, False]]], "reference": "1 0"}
    assert reward("TwoSAT", two_sat, "1 1") == pytest.approx(0.5 ** 10)
    assert reward("TwoSAT", two_sat, "1 2") == -1.0


def test_hungry_rabbit_rewards():
    data = {"N": 4, "K": 2, "L": 1, "forbidden": [[3], [4], []], "reference": "1 2\n1 3\n3 4"}
    assert reward("HungryRabbit", data, "1 2\n1 3\n1 4") == 1.0
    assert reward("HungryRabbit", data, "1 2\n1 3\n2 4") == pytest.approx(0.5 ** 10)  # step 3 changes two
    assert reward("HungryRabbit", data, "1 3\n1 2\n1 2") == -0.2  # 3 is forbidden at step 1
    assert reward("HungryRabbit", data, "1 2\n1 3") == -0.5


def test_knights_and_knaves_rewards():
    names = ["Ann", "Bob", "Cid"]
    data = {"names": names, "statements": [], "knights": [True, False, True]}
    assert reward("KnightsAndKnaves", data, "Ann is a knight, Bob is a knave, Cid is a knight") == 1.0
    assert reward("KnightsAndKnaves", data, "Ann is a knight, Bob is a knight, Cid is a knight") == pytest.approx(
        (2 / 3) ** 10)
    assert reward("KnightsAndKnaves", data, "Ann is a knight, Bob is a knave") == -1.0  # Cid missing
    assert reward("KnightsAndKnaves", data, "Ann is a knight, Ann is a knave, Cid is a knight") == -1.0


def test_knights_and_knaves_solution_count_against_enumeration():
    rng = random.Random(7)
    for _ in range(60):
        n = rng.randint(2, 6)
        statements = [random_statement(rng, n) for _ in range(n)]
        solutions = sum(all(knights[p] == is_true(statements[p], knights) for p in range(n))
                        for knights in ({p: bool(a >> p & 1) for p in range(n)} for a in range(2 ** n)))
        assert count_solutions(statements, limit=2 ** n + 1) == solutions


def test_largest_rectangle_rewards():
    points = [[0, 0], [2, 0], [2, 1], [0, 1], [4, 0], [4, 1]]
    data = {"points": points, "best_area2": 16, "reference": "0 4 5 3"}
    assert reward("LargestRectangle_AmongPoints", data, "0 4 5 3") == 1.0
    assert reward("LargestRectangle_AmongPoints", data, "0 1 2 3") == pytest.approx(0.5 ** 5)
    assert reward("LargestRectangle_AmongPoints", data, "0 1 2 4") == -0.5  # not a rectangle
    assert reward("LargestRectangle_AmongPoints", data, "0 1 2 9") == -0.5
    assert reward("LargestRectangle_AmongPoints", data, "0 1 2") == -1.0


def test_las_partial_stability():
    data = {"calories": [10, 1, 1], "reference": ""}
    # persons 1..3 sit between dishes (1, 2), (2, 3) and (3, 1)
    assert reward("LAS", data, "1 2 1") == 1.0
    assert reward("LAS", data, "2 3 1") == pytest.approx((2 / 3) ** 10)  # person 1 would rather share dish 1
    assert reward("LAS", data, "1 1 1") == -0.5  # person 2 cannot reach dish 1
    assert reward("LAS", data, "1 2") == -1.0


def test_light_up_rewards():
    data = {"puzzle": ["W1", "BW"], "reference": "L1\nBL"}
    assert reward("LightUpPuzzle", data, "L1\nBL") == pytest.approx(0.0)  # the 1 sees two bulbs
    assert reward("LightUpPuzzle", data, "W1\nBW") == -0.5  # unlit cells
    assert reward("LightUpPuzzle", data, "L2\nBL") == -0.5  # altered a numbered cell
    lone = {"puzzle": ["W1", "BB"], "reference": "L1\nBB"}
    assert reward("LightUpPuzzle", lone, "L1\nBB") == 1.0
    row = {"puzzle": ["WWB"], "reference": "LWB"}
    assert reward("LightUpPuzzle", row, "LLB") == -0.5  # bulbs see each other


def test_palindrome_string_rewards():
    double = {"S": "abaab", "best": 5, "reference": "0 1 5"}
    assert reward("Longest_DoublePalindrome", double, "0 1 5") == 1.0  # a + baab
    assert reward("Longest_DoublePalindrome", double, "0 3 4") == pytest.approx((4 / 5) ** 5)  # aba + a
    assert reward("Longest_DoublePalindrome", double, "0 2 5") == -0.5
    repeated = {"S": "abbaabbab", "reference": "abbaabba"}
    assert reward("Longest_RepeatedPalindrome", repeated, "abbaabba") == 1.0
    assert reward("Longest_RepeatedPalindrome", repeated, "abba") == -0.5  # not A rA A rA
    weight = {"S": "aaab", "best_value": 4, "reference": "aa"}
    assert reward("MaxWeightPalindromicSubstring", weight, "aaa") == pytest.approx((3 / 4) ** 5)
    assert reward("MaxWeightPalindromicSubstring", weight, "bab") == 0.0  # a palindrome that never occurs
    assert reward("MaxWeightPalindromicSubstring", weight, "ab") == -0.5


def test_numbrix_path_pieces():
    data = {"puzzle": [[0, -1], [-1, -1]], "reference": "0 1\n3 2"}
    assert reward("Numbrix", data, "0 1\n3 2") == 1.0
    assert reward("Numbrix", data, "0 1\n2 3") == pytest.approx((1 / 2) ** 3)  # 1 -> 2 is diagonal
    assert reward("Numbrix", data, "1 0\n3 2") == -0.5  # changed clue
    assert reward("Numbrix", data, "0 1\n1 2") == -0.5


def test_quantum_lock_bounds_runaway_values():
    data = {"buttons": [[["*", 3], ["*", 3]], [["+", 1], ["-", 1]]], "target": 1, "reference": "1"}
    assert reward("QuantumLockPuzzle", data, "1") == 1.0
    assert reward("QuantumLockPuzzle", data, "1 1") == 0.0
    assert reward("QuantumLockPuzzle", data, "2") == -0.5
    start = time.perf_counter()
    assert reward("QuantumLockPuzzle", data, "1 " + "0 " * 40_000) == 0.0  # 3^40000 is never computed
    assert time.perf_counter() - start < 1.0


def test_grid_rule_rewards():
    queens = {"board": ["....", "..Q.", "....", ".Q.."], "K": 1, "reference": "Q...\n..Q.\n....\n.Q.."}
    assert reward("QueenPlacement", queens, "Q...\n..Q.\n....\n.Q..") == 1.0
    assert reward("QueenPlacement", queens, "Q..Q\n..Q.\n....\n.Q..") == 0.0  # wrong count
    assert reward("QueenPlacement", queens, "Q...\n....\n....\n.Q..") == -0.5  # removed a given queen
    stars = {"grid": ["...", "X.."], "reference": "*..\nX.*"}
    assert reward("StarBattle", stars, "*..\nX.*") == 1.0
    assert reward("StarBattle", stars, "*..\nX*.") == 0.0  # touching diagonally
    assert reward("StarBattle", stars, "*..\n*.X") == -0.5
    sudoku = {"puzzle": [[1, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4], "box": [2, 2], "reference": ""}
    solved = "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1"
    assert reward("Sudoku", sudoku, solved) == 1.0
    assert reward("Sudoku", sudoku, "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 1 2") == 0.0
    assert reward("Sudoku", sudoku, solved.replace("1", "5", 1)) == -0.5


def test_round_table_capacity_fraction():
    data = {"sizes": [2, 1], "capacity": [1, 1, 1], "reference": "0 1\n2"}
    assert reward("RoundTableAssignment", data, "0 1\n2") == 1.0
    assert reward("RoundTableAssignment", data, "0 1\n0") == pytest.approx((2 / 3) ** 5)
    assert reward("RoundTableAssignment", data, "0 0\n1") == -0.5


def test_salad_bar_and_shift_rewards():
    salad = {"S": "pjpp", "best": 4, "reference": "0 3"}
    assert reward("SaladBar", salad, "2 3") == pytest.approx(0.5 ** 5)
    assert reward("SaladBar", salad, "1 2") == -0.5
    shift = {"S": "0110", "reference": "0011"}
    assert reward("MinimalCyclicShift", shift, "0110") == pytest.approx(0.5 ** 10)
    assert reward("MinimalCyclicShift", shift, "011") == -1.0


def test_smallest_circle_threshold():
    points = [[0, 0], [4, 0], [0, 3]]
    data = {"points": points, "radius": 2.5, "reference": "2 1.5 2.5"}
    assert accepted("SmallestCircle", data, "2 1.5 2.5")
    assert accepted("SmallestCircle", data, "2 1.5 2.5005")  # within the threshold
    assert reward("SmallestCircle", data, "2 1.5 5") == pytest.approx(0.5 ** 10)
    assert reward("SmallestCircle", data, "0 0 2.5") == 0.0  # (4, 0) is outside
    assert reward("SmallestCircle", data, "2 1.5 0") == -1.0


def test_visible_line_iou():
    data = {"lines": [[1, 0], [-1, 0], [0, -1]], "visible": [0, 1]}
    assert reward("VisibleLine", data, "0 1") == 1.0
    assert reward("VisibleLine", data, "0 2") == pytest.approx((1 / 3) ** 5)
    assert reward("VisibleLine", data, "0 5") == -1.0


def test_counting_answers():
    data = {"S": "01", "answer": 1}
    assert reward("AntiPalindromicSubstringCounting", data, "1") == 1.0
    assert reward("AntiPalindromicSubstringCounting", data, "2") == pytest.approx(0.5 ** 10)
    assert reward("AntiPalindromicSubstringCounting", data, "-1") == -1.0
    zero = {"S": "00", "answer": 0}
    assert reward("AntiPalindromicSubstringCounting", zero, "0") == 1.0
    assert reward("AntiPalindromicSubstringCounting", zero, "1") == 0.0


def test_binary_answer_rewards():
    assert reward("KthSubsequence", {"S": "ab", "K": 2, "reference": "ab"}, "ab") == 1.0
    assert reward("KthSubsequence", {"S": "ab", "K": 2, "reference": "ab"}, "abc") == -1.0
    assert reward("MinNonsubstring", {"A": "ab", "reference": "aa"}, "ba") == 0.0
    assert reward("MinNonsubstring", {"A": "ab", "reference": "aa"}, "c") == -0.5
    assert reward("SecretCowCode", {"S": "AB", "K": 3, "reference": "B"}, "C") == -1.0


# --- exact solvers against brute force on small random instances -------------------------------------


def test_cho_hamsters_against_brute_force():
    rng = random.Random(1)

    def brute(names, m):
        for length in itertools.count(1):
            for letters in itertools.product("ab", repeat=length):
                text = "".join(letters)
                if sum(text.startswith(name, i) for name in names for i in range(len(text))) >= m:
                    return length

    for _ in range(25):
        names = []
        while len(names) < rng.randint(1, 2):
            name = "".join(rng.choice("ab") for _ in range(rng.randint(2, 3)))
            if all(name not in other and other not in name for other in names):
                names.append(name)
        m = rng.randint(1, 4)
        assert shortest_length(names, m) == brute(names, m)


def test_virus_synthesis_against_bfs():
    rng = random.Random(2)
    for _ in range(40):
        target = "".join(rng.choice("01") for _ in range(rng.randint(1, 9)))
        pieces = {target[i:j] for i in range(len(target)) for j in range(i, len(target) + 1)}
        distance, frontier = {"": 0}, [""]
        while target not in distance:
            following = []
            for s in frontier:
                for t in ("0" + s, "1" + s, s + "0", s + "1", s[::-1] + s, s + s[::-1]):
                    if t in pieces and t not in distance:
                        distance[t] = distance[s] + 1
                        following.append(t)
            frontier = following
        assert build_cost(target) == distance[target]


def test_geometry_solvers_against_brute_force():
    rng = random.Random(3)
    for _ in range(40):
        points = [list(p) for p in {(rng.randint(-2, 2), rng.randint(-2, 2)) for _ in range(rng.randint(4, 10))}]
        best = max([rectangle_area2([points[i] for i in c]) for c in itertools.combinations(range(len(points)), 4)],
                   default=0)
        assert best_rectangle(points)[0] == best
    for _ in range(40):
        points = []
        while len(points) < rng.randint(3, 7):
            p = [rng.randint(0, 12), rng.randint(0, 12)]
            if p not in points and not any((b[0] - a[0]) * (p[1] - a[1]) == (b[1] - a[1]) * (p[0] - a[0])
                                           for i, a in enumerate(points) for b in points[i + 1:]):
                points.append(p)
        radius = min(c[2] for k in (2, 3) for combo in itertools.combinations(points, k)
                     for c in [circle_from(list(combo))] if all(math.dist(c[:2], p) <= c[2] + 1e-9 for p in points))
        assert enclosing_circle(rng, points)[2] == pytest.approx(radius)
    for _ in range(20):
        width, height = rng.randint(1, 4), rng.randint(1, 4)
        grid = [(x, y) for x in range(width + 1) for y in range(height + 1)]
        damaged = rng.sample(grid, rng.randint(0, 3))
        alive = set(grid) - set(damaged)
        squares = set()
        for p, q in itertools.permutations(alive, 2):
            dx, dy = q[0] - p[0], q[1] - p[1]
            corners = {p, q, (q[0] - dy, q[1] + dx), (p[0] - dy, p[1] + dx)}
            if corners <= alive:
                squares.add(frozenset(corners))
        assert count_squares(width, height, [list(d) for d in damaged]) == len(squares)


def test_visible_lines_against_sampling():
    from fractions import Fraction
    rng = random.Random(4)
    for _ in range(40):
        lines = [list(v) for v in {(rng.randint(-3, 3), rng.randint(-3, 3)) for _ in range(rng.randint(2, 7))}]
        cuts = sorted({Fraction(d - b, a - c) for a, b in lines for c, d in lines if a != c})
        probes = [cuts[0] - 1, cuts[-1] + 1] + [(p + q) / 2 for p, q in zip(cuts, cuts[1:])] if cuts else [0]
        seen = set()
        for x in probes:
            values = [a * x + b for a, b in lines]
            if values.count(max(values)) == 1:
                seen.add(values.index(max(values)))
        assert visible_lines(lines) == sorted(seen)


def test_las_laser_small_cases():
    # two disjoint angular ranges and one range covering both: one ray hits two, two rays cannot beat that
    segments = [[4, 1, 4, 2], [2, 4, 1, 4], [4, 1, 1, 4]]
    assert most_segments_hit(segments, 1) == 2
    assert most_segments_hit(segments, 2) == 2
    assert most_segments_hit([[4, 1, 4, 2], [2, 4, 1, 4]], 2) == 2


def test_counting_solvers_small_cases():
    assert prefix_free_subsets(["a", "ab", "b"]) == 5  # {a},{ab},{b},{a,b},{ab,b}
    assert prefix_free_subsets(["a", "a"]) == 2
    assert longest_good("jpjpp") == [1, 4]
