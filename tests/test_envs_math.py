"""Targeted tests for the number-theory and mathematics environments (issue 15).

Hand-made instances pin the reward rules with structure (partial credit, invalid answers,
optimum vs worse); brute force pins the closed forms the generators rely on; the formula
environments get the security cases (injection, power towers, deep nesting).
"""

import itertools
import math
import random
import time

import pytest

from rlve_jax.gym.environments import (bezout_identity, clear_symmetry, delta_min_popcount, min_k_divisor_number,
                          minimum_fibonacci_representation, negative_base, power_cycle, power_nest,
                          prefix_product_mod_distinct_permutation, prefix_sum_mod_distinct_permutation,
                          recursive_function, self_power_sequence_mod, sum_pseudo_euclidean,
                          two_set_all_coprime_counting)
from rlve_jax.gym.environments._formulas import parse_expression
from rlve_jax.gym.environments._numbers import euler_phi
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, FormatError, Problem
from rlve_jax.gym.environments._common import score_count


def score(name: str, data: dict, answer: str) -> float:
    """Reward through the public verify() path, so format errors come out as -1."""
    env = registry.make(name)
    problem = Problem(name, 0, 0, "", {}, data, env.pass_threshold(data))
    return env.verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


# ---------------------------------------------------------------------------
# Shared reward shape


def test_score_count():
    assert score_count("10", 10) == 1.0
    assert score_count("5", 10) == pytest.approx(0.5**10)
    assert score_count("20", 10) == pytest.approx(0.5**10)
    assert score_count("0", 0) == 1.0 and score_count("3", 0) == 0.0 and score_count("0", 3) == 0.0
    assert score_count("-1", 3) == -1.0
    assert score_count("0", 3, positive=True) == -1.0
    with pytest.raises(FormatError):
        score_count("1.5", 3)


# ---------------------------------------------------------------------------
# Formula answers: Differentiate and Integral


DIFFERENTIATE = {"function": "sin(x**2)", "derivative": "2*x*cos(x**2)", "function_ops": 2, "derivative_ops": 4}


def short_id(value) -> str:
    return repr(value)[:24]


@pytest.mark.parametrize("answer, reward", [
    ("2*x*cos(x**2)", 1.0),
    ("cos(x^2)*x*2", 1.0),               # ^ is read as a power, like sympify
    ("2*x*cos(x**2) + 1e-7", 0.0),       # a near miss within the 1e-5 grid tolerance is still wrong
    ("2*x*cos(x**2) + 0*y", -1.0),       # another symbol
    ("x" + "+x-x" * 20 + "+2*x*cos(x**2)", 0.0),  # more than 4x the reference's operations
    ("2*x*cos(x**2", -1.0),
    ("__import__('os').system('true')", -1.0),
    ("().__class__.__base__.__subclasses__()", -1.0),
    ("9**9**9**9", 0.0),
    ("x**(10**40)", 0.0),
    ("1e999999", -1.0),
    ("(" * 5000 + "x" + ")" * 5000, -1.0),
    ("-" * 9000 + "x", -1.0),
    ("lambda: 0", -1.0),
    ("x.real", -1.0),
], ids=short_id)
def test_differentiate_rewards(answer, reward):
    start = time.perf_counter()
    assert score("Differentiate", DIFFERENTIATE, answer) == reward
    assert time.perf_counter() - start < 10.0  # guards against a hang, not a benchmark


@pytest.mark.parametrize("answer, reward", [
    ("log(x)", 1.0),
    ("log(2*x) + 7", 1.0),      # any antiderivative
    ("ln(-x)", 1.0),            # a different branch, same derivative
    ("log(Abs(x))", 1.0),
    ("log(x, E)", 1.0),
    ("log(x, E) - log(3)", 0.0),  # right, but more than 4x the reference's one operation
    ("log(x) + x/10**8", 0.0),
    ("1/x", 0.0),
    ("log(x) + (10**40*x - 10**40*x) + 1e-3*x", 0.0),  # big cancelling terms do not hide an error
])
def test_integral_rewards(answer, reward):
    data = {"function": "log(x)", "derivative": "1/x", "function_ops": 1, "derivative_ops": 1}
    assert score("Integral", data, answer) == reward


def test_formula_parser_whitelist():
    assert parse_expression("2*x + E - pi") is not None
    for bad in ("x if x else 1", "[x]", "f(x)", "sin(x, x)", "sin(*x)", "x @ x", "x // 2", "1j*x", "0x1F"):
        with pytest.raises(FormatError):
            parse_expression(bad)


def test_generated_formulas_accept_their_references():
    for name in ("Differentiate", "Integral"):
        env = registry.make(name)
        for d in (1, 5):
            problem = env.generate(d, 11)
            assert env.verify(problem, f"<answer>{env.reference(problem)}</answer>", ANSWER_TAGS).reward == 1.0


# ---------------------------------------------------------------------------
# CountdownEqual: restricted arithmetic


@pytest.mark.parametrize("answer, reward", [
    ("(4 - 1) * 3", 1.0),
    ("3 * (4 - 1)", 1.0),
    ("4 * 3 - 1", 0.0),         # right numbers, wrong value
    ("4 * 3 - 1 - 1", -0.5),    # a number used twice
    ("4 * 3", -0.5),            # a number missing
    ("3 / (4 - 4)", -0.5),
    ("4 ** 3 ** 1", -1.0),      # the original's eval ran power towers of the given numbers
    ("4 // 1 * 3", -1.0),
    ("__import__('os')", -1.0),
    ("9" * 5000, -1.0),
], ids=short_id)
def test_countdown_equal_rewards(answer, reward):
    data = {"numbers": [1, 3, 4], "target": 9, "reference": "(4 - 1) * 3"}
    assert score("CountdownEqual", data, answer) == reward


def test_countdown_equal_division_is_exact():
    data = {"numbers": [3, 8, 3, 8], "target": 24, "reference": ""}
    assert score("CountdownEqual", data, "8 / (3 - 8 / 3)") == 1.0


# ---------------------------------------------------------------------------
# Partial credit and invalid answers on hand-made instances


def test_polynomial_minimum_piecewise():
    data = {"coefficients": [1, -2, 1], "reference": "1.0"}  # (x - 1)^2: f(0) = 1, f* = 0
    assert score("PolynomialMinimum", data, "1") == pytest.approx(0.95)
    assert score("PolynomialMinimum", data, "0.5") == pytest.approx(0.95 * 0.75**5)
    assert score("PolynomialMinimum", data, "0") == 0.0
    assert score("PolynomialMinimum", data, "-3") == 0.0
    assert score("PolynomialMinimum", data, "nan") == -1.0
    worse_reference = {"coefficients": [1, -2, 1], "reference": "0.9"}  # f* = 0.01
    assert score("PolynomialMinimum", worse_reference, "1") == pytest.approx(0.95 + 0.05 / (1 + 100))


def test_bezout_identity():
    data = {"A": [4, -6], "gcd": 2}
    assert score("BezoutIdentity", data, "1 1") == -0.5  # S = -2 is not positive
    assert score("BezoutIdentity", data, "-1 -1") == 1.0
    assert score("BezoutIdentity", data, "1 0") == pytest.approx((2 / 4) ** 5)
    assert score("BezoutIdentity", data, "1") == -0.5
    for values in ([12, -18, 8], [7, 5], [-9, 6, 15, 10]):
        coefficients = bezout_identity.bezout_coefficients(values)
        assert sum(a * x for a, x in zip(values, coefficients)) == math.gcd(*values)


def test_congruent_equation_and_discrete_logarithm():
    data = {"A": 3, "B": 7, "reference": "5"}
    assert score("CongruentEquation", data, "5") == 1.0
    assert score("CongruentEquation", data, "12") == 0.0
    assert score("CongruentEquation", data, "4") == -0.5
    assert score("CongruentEquation", data, "0") == -1.0
    log = {"X": 2, "Z": 7, "K": 4, "reference": "2"}  # 2^2 = 4, period 3
    assert score("DiscreteLogarithm", log, "2") == 1.0
    assert score("DiscreteLogarithm", log, "5") == pytest.approx((2 / 5) ** 2)
    assert score("DiscreteLogarithm", log, "3") == 0.0
    assert score("DiscreteLogarithm", log, "-2") == -1.0


def test_min_k_divisor_number():
    data = {"K": 4, "reference": "6"}
    assert score("MinKDivisorNumber", data, "6") == 1.0
    assert score("MinKDivisorNumber", data, "8") == pytest.approx((6 / 8) ** 2)
    assert score("MinKDivisorNumber", data, str(16411 * 16417)) == 0.0  # two primes above the trial bound
    assert score("MinKDivisorNumber", data, "7") == 0.0
    assert score("MinKDivisorNumber", data, "4") == 0.0
    assert score("MinKDivisorNumber", data, "0") == -1.0
    limit = 20_000
    divisors = [0] * limit
    for d in range(1, limit):
        for multiple in range(d, limit, d):
            divisors[multiple] += 1
    best = {}
    for n in range(1, limit):
        best.setdefault(divisors[n], n)
    for k, n in best.items():
        assert min_k_divisor_number.smallest_with_divisors(k) == n


def test_gcd_lcm_counting_powers_of_two():
    data = {"G": 2, "L": 60, "reference": "8"}  # 60 / 2 = 30 = 2 * 3 * 5
    assert score("GcdLcmCounting", data, "8") == 1.0
    assert score("GcdLcmCounting", data, "4") == pytest.approx(0.5**10)
    assert score("GcdLcmCounting", data, "7") == 0.0
    assert score("GcdLcmCounting", {"G": 7, "L": 60, "reference": "0"}, "0") == 1.0


def test_power_cycle():
    data = {"N": 2, "K": 2, "reference": "20"}
    assert score("PowerCycle", data, "20") == 1.0
    assert score("PowerCycle", data, "60") == pytest.approx(1 / 3)
    assert score("PowerCycle", data, "30") == 0.0
    assert score("PowerCycle", data, "0") == -1.0
    rng = random.Random(0)
    for _ in range(300):
        n, k = rng.randint(1, 9999), rng.randint(1, 3)
        seen, value = {}, 1
        for i in itertools.count(1):
            value = value * n % 10**k
            if value in seen:
                assert power_cycle.eventual_period(n, k) == i - seen[value]
                break
            seen[value] = i


def test_power_nest():
    data = {"number": 7, "reference": "2(2)+2+2(0)"}
    assert score("PowerNest", data, "2(2)+2+2(0)") == 1.0
    assert score("PowerNest", data, "2(2) + 2 + 2(0)") == 1.0
    assert score("PowerNest", data, "2+2(2)+2(0)") == 0.0       # well formed, not canonical
    assert score("PowerNest", data, "2(2(0))+2(2)+2(0)") == 0.0
    assert score("PowerNest", data, "2^2+2+1") == -0.5
    assert score("PowerNest", data, "2(2)+2+") == -0.5
    assert score("PowerNest", data, "((((") == -0.5
    assert power_nest.power_nest(137) == "2(2(2)+2+2(0))+2(2+2(0))+2(0)"


def test_negative_base():
    data = {"N": 6, "R": 2, "reference": "1 1 0 1 0"}  # 16 - 8 - 2 = 6
    assert score("NegativeBase", data, "1 1 0 1 0") == 1.0
    assert score("NegativeBase", data, "1 1 0 1 1") == pytest.approx(0.8)
    assert score("NegativeBase", data, "1 1 0") == 0.0
    for n in range(-200, 201):
        for radix in (2, 3, 10, 16):
            digits = negative_base.to_negative_base(n, radix)
            assert sum(d * (-radix) ** i for i, d in enumerate(reversed(digits))) == n
            assert all(0 <= d < radix for d in digits) and (digits[0] or n == 0)


def test_permutation_environments():
    product = {"N": 5, "reference": "1 2 4 3 5"}
    assert score("PrefixProductMODDistinctPermutation", product, "1 2 4 3 5") == 1.0
    assert score("PrefixProductMODDistinctPermutation", product, "1 2 3 4 5") == pytest.approx((4 / 5) ** 10)
    assert score("PrefixProductMODDistinctPermutation", product, "1 2 3 4 4") == -0.5
    summed = {"N": 4, "reference": "4 1 2 3"}
    assert score("PrefixSumMODDistinctPermutation", summed, "1 2 3 4") == pytest.approx((3 / 4) ** 10)
    assert score("PrefixSumMODDistinctPermutation", summed, "1 2 3") == -0.5
    for n in range(4, 120, 2):
        sums = itertools.accumulate(prefix_sum_mod_distinct_permutation.construction(n))
        assert len({s % n for s in sums}) == n
    for n in (4, 5, 7, 11, 13, 97):
        products = itertools.accumulate(prefix_product_mod_distinct_permutation.construction(n), lambda a, b: a * b % n)
        assert len(set(products)) == n


def test_squ_squarks_and_odl_distance():
    data = {"sums": [3, 4, 5], "N": 3, "reference": "1 2 3"}
    assert score("SquSquarks", data, "3 2 1") == 1.0
    assert score("SquSquarks", data, "1 2 4") == pytest.approx((2 / 4) ** 5)  # sums 3 5 6 vs 3 4 5
    assert score("SquSquarks", data, "1 1 3") == -0.5
    assert score("SquSquarks", data, "0 1 3") == -0.5
    odl = {"values": [2, 3, 4], "reference": "3 1 1"}
    assert score("ODLDistance", odl, "3 1 1") == 1.0
    assert score("ODLDistance", odl, "3 1 2") == pytest.approx((2 / 3) ** 5)
    assert score("ODLDistance", odl, "1 1 1") == -0.5
    assert score("ODLDistance", odl, "3 1 4") == -0.5


def test_optimisation_environments():
    panels = {"A": 4, "B": 6, "C": 9, "D": 13, "best": 6, "reference": "6 12"}
    assert score("PanSolarPanels", panels, "6 12") == 1.0
    assert score("PanSolarPanels", panels, "4 10") == pytest.approx((2 / 6) ** 3)
    assert score("PanSolarPanels", panels, "7 12") == -0.5
    assert score("PanSolarPanels", panels, "6") == -1.0
    divisor = {"A": [5, 7], "K": 3, "reference": "3"}
    assert score("MaximumDivisor", divisor, "3") == 1.0
    assert score("MaximumDivisor", divisor, "2") == pytest.approx((2 / 3) ** 5)
    assert score("MaximumDivisor", divisor, "4") == -0.5
    assert score("MaximumDivisor", divisor, "0") == -1.0


def test_construction_environments():
    sequence = {"N": 4, "F0": 1, "A": 2, "B": 1, "S": 3 + 15, "reference": "1 3"}  # F = 1, 3, 7, 15, 31
    assert score("RecursiveSequenceSumConstruction", sequence, "3 1") == 1.0
    assert score("RecursiveSequenceSumConstruction", sequence, "1 2") == 0.0
    assert score("RecursiveSequenceSumConstruction", sequence, "1 1") == -0.5
    assert score("RecursiveSequenceSumConstruction", sequence, "0 3") == -0.5
    assert score("RecursiveSequenceSumConstruction", sequence, "1 41") == 0.0
    hack = {"MOD": 4, "reference": "1 1"}
    assert score("ConstructHackInterval", hack, "1 3") == 0.0  # 1 + 2 + 3 = 6
    assert score("ConstructHackInterval", hack, "4 4") == 1.0
    assert score("ConstructHackInterval", hack, "3 41") == -0.5
    assert score("ConstructHackInterval", hack, "5 4") == -0.5


def test_equation_environments():
    system = {"rows": [[1, 0], [1, 1], [0, 2]], "constants": [1, 3, 4], "reference": "1 2"}
    assert score("GaussianElimination", system, "1 2") == 1.0
    assert score("GaussianElimination", system, "1 3") == pytest.approx((1 / 3) ** 10)
    assert score("GaussianElimination", system, "1") == -1.0
    roots = {"coefficients": [-2, 1, 1], "reference": "-2 1"}
    assert score("PolynomialFactorization", roots, "1 -2") == 1.0
    assert score("PolynomialFactorization", roots, "1 1") == pytest.approx(0.5**5)
    assert score("PolynomialFactorization", roots, "1") == -1.0
    remainder = {"P": [0, 0, 0, 1], "Q": [1, 0, 1], "reference": "0 -1"}  # x^3 = x (x^2 + 1) - x
    assert score("PolynomialRemainder", remainder, "0 -1") == 1.0
    assert score("PolynomialRemainder", remainder, "0 1") == pytest.approx(0.5**10)
    assert score("PolynomialRemainder", remainder, "-1") == -0.5


def test_root_extraction_threshold():
    data = {"N": 2, "K": 2, "reference": "1.41421"}
    assert registry.make("RootExtraction").pass_threshold(data) == pytest.approx((1 / (1 + 1e-4)) ** 2)
    assert score("RootExtraction", data, "1.41421") == 1.0
    assert score("RootExtraction", data, "1.4142") == pytest.approx((1 / (1 + 1e-5)) ** 2)
    assert score("RootExtraction", data, "1.5") < (1 / (1 + 1e-4)) ** 2


# ---------------------------------------------------------------------------
# Closed forms against brute force


def test_clear_symmetry_formula():
    def reachable(n: int) -> set[int]:
        half, counts = (n + 1) // 2, set()
        for bits in range(1 << half * half):
            cell = [[bits >> (min(i, n - 1 - i) * half + min(j, n - 1 - j)) & 1 for j in range(n)] for i in range(n)]
            if all(not (cell[i][j] and ((i + 1 < n and cell[i + 1][j]) or (j + 1 < n and cell[i][j + 1])))
                   for i in range(n) for j in range(n)):
                counts.add(sum(map(sum, cell)))
        return counts

    sides = {n: reachable(n) for n in range(1, 6)}
    for x in range(1, 14):
        assert clear_symmetry.smallest_side(x) == min(n for n, counts in sides.items() if x in counts)


def test_delta_min_popcount_and_fibonacci_representation():
    for d in range(1, 130):
        brute = min(bin(n ^ (n + d)).count("1") for n in range(1024))
        assert delta_min_popcount.min_popcount(d) == brute
    fibonacci = [1, 2]
    while fibonacci[-1] < 2000:
        fibonacci.append(fibonacci[-1] + fibonacci[-2])
    distance, frontier = {0: 0}, [0]
    while frontier:  # breadth-first search over sums of signed Fibonacci numbers
        reached = []
        for v in frontier:
            for w in (v + f for f in fibonacci) if v <= 1000 else ():
                for u in (w, v - (w - v)):
                    if abs(u) <= 1000 and u not in distance:
                        distance[u] = distance[v] + 1
                        reached.append(u)
        frontier = reached
    assert all(minimum_fibonacci_representation.fewest_terms(k) == distance[k] for k in range(1, 500))


def test_number_theory_closed_forms():
    for m in range(3, 120):  # with a short phi chain the height-6 tower has already settled
        chain, value = 0, m
        while value > 1:
            value, chain = euler_phi(value), chain + 1
        if chain <= 4:
            assert self_power_sequence_mod.tower_mod(m) == pow(2, 2**65536, m)
    # the original's halving recursion: f(1, n) = (n // 2 + 2) + (n + 1); f(2, 3) = f(1, 4) + f(1, 6) = 9 + 12
    assert [recursive_function.evaluate(1, n) for n in range(1, 5)] == [4, 6, 7, 9]
    assert recursive_function.evaluate(2, 2) == 18 and recursive_function.evaluate(2, 3) == 21
    assert sum_pseudo_euclidean.steps(1, 3) == 1 and sum_pseudo_euclidean.steps(1, 2) == 0
    assert sum_pseudo_euclidean.steps(3, 5) == 2  # (3, 5) -> (6, 2) -> (4, 4)
    rng = random.Random(1)
    for _ in range(100):
        values = sorted(rng.sample(range(2, 16), rng.randint(2, 7)))
        brute = sum(all(math.gcd(x, y) == 1 for x, y in itertools.product(
            [v for v, side in zip(values, sides) if side == 1], [v for v, side in zip(values, sides) if side == 2]))
            for sides in itertools.product(range(3), repeat=len(values)))
        assert two_set_all_coprime_counting.count_pairs(values) == brute
