"""Fidelity to the original gym (spec/fidelity_fixes.md sections 1-3): level settings, SpyNetwork's task,
instance samplers and moduli. Every figure pinned here is the original's, from the facts sheet.

Answer magnitudes are median log10(|answer| + 1); the sheet's are medians of 40 original problems, so the
levels pinned are those where a 40-problem median is a stable figure (the others are heavy-tailed).
"""

import math
import statistics
from itertools import product

import pytest

from rlve_jax.gym.environments import jug_puzzle, recursive_function
from rlve_jax.gym.environments._graphs import DENSITIES_L7, DENSITIES_L11, DENSITIES_L15, find_bridges
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS

ORIGINAL_3_PRIMES = {666623333, 998244353, 1000000007}
ORIGINAL_2_PRIMES = {1000000007, 998244353}


def problems(name: str, d: int, seeds: int = 40) -> list[dict]:
    env = registry.make(name)
    return [env.generate(d, seed).data for seed in range(seeds)]


def median_of(name: str, d: int, value, seeds: int = 40) -> float:
    return statistics.median(value(data) for data in problems(name, d, seeds))


def log10_of(key: str):
    return lambda data: math.log10(abs(int(data[key])) + 1)


# ---------------------------------------------------------------------------
# 1. Level settings: the original's level-list sizes at d = 0..8 and its density lists


LEVEL_SIZES = {
    "Bridge": [30, 45, 30, 60, 60, 60, 75, 75, 75],
    "ColoringCounting": [8, 9, 9, 10, 10, 10, 10, 11, 11],
    "JugPuzzle": [16] * 9,
    "MaximumAchromaticNumber": [9, 9, 10, 10, 10, 10, 11, 11, 11],
    "MinimumChromaticNumber": [9, 9, 10, 10, 10, 10, 11, 11, 11],
    "MinimumHarmoniousChromaticNumber": [9, 9, 10, 10, 10, 10, 11, 11, 11],
    "Minimum_CrossingEdges_GraphPartition": [7, 8, 9, 9, 10, 10, 10, 10, 11],
    "MinimumCost_MaximumFlow": [11] * 9,
    "MinimumDirectedSpanningTree": [4, 5, 6, 6, 6, 6, 6, 7, 7],
    "MinimumSpanningTree": [2, 3, 4, 4, 5, 5, 5, 6, 6],
    "Minimum_DominatingSet": [11, 13, 13, 14, 14, 14, 14, 15, 15],
    "Minimum_VertexCover": [11, 13, 13, 14, 14, 14, 14, 15, 15],
    "SpyNetwork": [10, 15, 15, 20, 25, 25, 25, 30, 30],
    "SubgraphIsomorphism": [7, 8, 9, 9, 10, 10, 10, 10, 10],
    "SumSpanningTreeGCD": [3, 4, 4, 5, 5, 5, 6, 6, 6],
    "Vertex_KCenter": [5, 7, 8, 9, 10, 10, 11, 11, 11],
}

DENSITY_LISTS = {
    "Bridge": DENSITIES_L15, "ColoringCounting": DENSITIES_L11, "MaximumAchromaticNumber": DENSITIES_L11,
    "MinimumChromaticNumber": DENSITIES_L11, "MinimumHarmoniousChromaticNumber": DENSITIES_L11,
    "Minimum_CrossingEdges_GraphPartition": DENSITIES_L11, "MinimumDirectedSpanningTree": DENSITIES_L7,
    "MinimumSpanningTree": DENSITIES_L7, "Minimum_DominatingSet": DENSITIES_L15,
    "Minimum_VertexCover": DENSITIES_L15, "SumSpanningTreeGCD": DENSITIES_L7, "Vertex_KCenter": DENSITIES_L15,
    "MinimumCost_MaximumFlow": (0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5),
    "SubgraphIsomorphism": (0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95),
    "SpyNetwork": (0.01, 0.02, 0.03, 0.05, 0.1, 0.15),
}


def test_original_density_lists():
    assert DENSITIES_L11 == (0.02, 0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95)
    assert DENSITIES_L15 == (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9)
    assert DENSITIES_L7 == (0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9)


@pytest.mark.parametrize("name", sorted(LEVEL_SIZES))
def test_level_list_sizes_match_the_original(name):
    env = registry.make(name)
    assert [len(env.levels(d)) for d in range(9)] == LEVEL_SIZES[name]
    if name in DENSITY_LISTS:  # every density used at some level comes from the original's list, d8 uses the most
        used = {p["edge_density"] for d in range(9) for p in env.levels(d)}
        assert used <= set(DENSITY_LISTS[name])
        assert {p["edge_density"] for p in env.levels(8)} == {
            rho for rho in DENSITY_LISTS[name] if rho in used}


def test_bridge_components_and_whole_graph_edge_target():
    env = registry.make("Bridge")
    expected = [{2, 3}, {2, 3, 4}, {3, 4}, {2, 3, 4, 5}, {2, 4, 5, 6}, {2, 4, 6, 7}, {2, 3, 5, 7, 8},
                {2, 3, 6, 8, 9}, {2, 4, 7, 9, 11}]
    assert [{p["component_num"] for p in env.levels(d)} for d in range(9)] == expected
    for data in problems("Bridge", 8):
        assert all(u < v for u, v in data["edges"]) and data["bridges"] == find_bridges(data["N"], data["edges"])
    # the original's median edge counts (whole-graph target floor(rho * C(N, 2))): d4 8, d8 16
    assert abs(median_of("Bridge", 4, lambda x: len(x["edges"])) - 8) <= 2
    assert abs(median_of("Bridge", 8, lambda x: len(x["edges"])) - 16) <= 3


def test_jug_puzzle_walk():
    assert jug_puzzle.STEPS == (3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 35, 40, 45, 50)
    assert jug_puzzle.ACTION_WEIGHTS == (0.1, 0.1, 0.8)
    env = registry.make("JugPuzzle")
    capacity_targets = 0
    for d in range(9):
        for seed in range(40):
            problem = env.generate(d, seed)
            capacities, target = problem.data["capacities"], problem.data["target"]
            actions = problem.data["reference"].splitlines()
            if target in capacities:  # only the "Fill j" fallback offers a capacity
                capacity_targets += 1
                assert len(actions) == 1 and actions[0].startswith("Fill")
            else:  # candidates exclude capacity differences
                assert target not in {a - b for a in capacities for b in capacities}
            assert env.verify(problem, f"<answer>{problem.data['reference']}</answer>", ANSWER_TAGS).accuracy
    assert 0.35 <= capacity_targets / 360 <= 0.65  # the original: 49% (35-60% per level)


def test_minimum_cost_maximum_flow_planted_path():
    for data in problems("MinimumCost_MaximumFlow", 2):
        assert data["max_flow"] >= 5  # the planted path's capacities are U[5, 10]
    # the original's median maximum flow: d2 9, d8 17.5
    assert abs(median_of("MinimumCost_MaximumFlow", 2, lambda x: x["max_flow"]) - 9) <= 2
    assert abs(median_of("MinimumCost_MaximumFlow", 8, lambda x: x["max_flow"]) - 17.5) <= 3.5


def test_minimum_directed_spanning_tree_arcs_into_the_root_and_weight_bound():
    env = registry.make("MinimumDirectedSpanningTree")
    into_root = 0
    for seed in range(40):
        problem = env.generate(6, seed)
        n, root = problem.data["N"], problem.data["root"]
        bound = int(problem.params["edge_density"] * n * (n - 1))
        assert len(problem.data["edges"]) == bound and all(1 <= w <= bound for _, _, w in problem.data["edges"])
        into_root += any(t == root for _, t, _ in problem.data["edges"])
        assert env.verify(problem, f"<answer>{problem.data['reference']}</answer>", ANSWER_TAGS).accuracy
    assert into_root >= 10


def test_cheapest_vertex_set_optimum():
    # the original's median optimal dominating-set cost: 11 at d3 and at d8
    assert abs(median_of("Minimum_DominatingSet", 3, lambda x: x["optimum"]) - 11) <= 2
    assert abs(median_of("Minimum_DominatingSet", 8, lambda x: x["optimum"]) - 11) <= 2


def test_polynomial_remainder_degrees_and_positive_leading_coefficients():
    env = registry.make("PolynomialRemainder")
    expected = {5: [2, 3, 4, 5, 7], 6: [2, 3, 4, 5, 6, 8], 7: [2, 3, 4, 5, 7, 9], 8: [2, 3, 4, 5, 6, 8, 10]}
    assert {d: [p["M"] for p in env.levels(d)] for d in expected} == expected
    for data in problems("PolynomialRemainder", 4):
        assert 1 <= data["Q"][-1] <= 5 and data["P"][-1] > 0  # both leading coefficients U[1, 5]


def test_spy_network_original_task():
    env = registry.make("SpyNetwork")
    for d in range(9):
        assert {p["edge_density"] for p in env.levels(d)} == (
            {0.1, 0.15} if d == 0 else {0.05, 0.1, 0.15} if d <= 2 else {0.03, 0.05, 0.1, 0.15} if d == 3
            else {0.02, 0.03, 0.05, 0.1, 0.15} if d <= 6 else {0.01, 0.02, 0.03, 0.05, 0.1, 0.15})
    problem = env.generate(8, 0)
    n = problem.data["N"]
    assert len(problem.data["cost"]) == n and all(1 <= c <= n for c in problem.data["cost"])
    assert all(f"{v}:{c}" in problem.prompt for v, c in enumerate(problem.data["cost"]))
    # the original's medians: optimum cost d0 8, d4 23, d8 69; arcs d8 7
    assert abs(median_of("SpyNetwork", 0, lambda x: x["optimum"]) - 8) <= 2
    assert abs(median_of("SpyNetwork", 4, lambda x: x["optimum"]) - 23) <= 5
    assert abs(median_of("SpyNetwork", 8, lambda x: x["optimum"]) - 69) <= 12
    assert abs(median_of("SpyNetwork", 8, lambda x: len(x["edges"])) - 7) <= 3


def test_subgraph_isomorphism_g2_always_has_an_edge():
    for d in (0, 1):
        assert all(data["edges2"] for data in problems("SubgraphIsomorphism", d))


def test_sum_spanning_tree_gcd_sampler():
    env = registry.make("SumSpanningTreeGCD")
    problem = env.generate(3, 0)
    assert "labeled from 1 to" in problem.prompt
    assert min(min(u, v) for u, v, _ in problem.data["edges"]) == 0  # 0-based inside, 1-based in the prompt
    assert {data["mod"] for data in problems("SumSpanningTreeGCD", 2, 60)} == ORIGINAL_3_PRIMES
    # the original's median log10 answers: d3 2.2, d4 3.0
    for d, original in ((3, 2.2), (4, 3.0)):
        assert abs(median_of("SumSpanningTreeGCD", d, log10_of("gold"), 100) - original) <= 0.5


# ---------------------------------------------------------------------------
# 3. Answer magnitudes and moduli


MODULI = {
    ("GCDFibonacciProduct", "MOD"): ORIGINAL_3_PRIMES,
    ("DistinctEdgeColoredCompleteGraphCounting", "MOD"): ORIGINAL_3_PRIMES,
    ("MaxRMQExpectation", "mod"): ORIGINAL_3_PRIMES,
    ("SingingGirlStory", "mod"): ORIGINAL_3_PRIMES,
    ("SumSetMultiplication", "mod"): ORIGINAL_3_PRIMES,
    ("GradeRankingCounting", "MOD"): ORIGINAL_2_PRIMES,
    ("KiddingMe", "MOD"): ORIGINAL_2_PRIMES,
}


@pytest.mark.parametrize("name,key", sorted(MODULI))
def test_moduli_are_the_original_primes(name, key):
    assert {data[key] for data in problems(name, 1, 60)} == MODULI[name, key]


# (env, answer key, {d: the original's median log10 answer}); checked within 0.5 over 100 problems
MAGNITUDES = [
    ("GCDFibonacciProduct", "reference", {4: 7.9, 5: 8.6, 8: 8.6}),
    ("DistinctEdgeColoredCompleteGraphCounting", "gold", {3: 8.4, 5: 8.7, 8: 8.5}),
    ("GradeRankingCounting", "gold", {0: 0.6, 1: 0.8, 2: 1.6}),
    ("MinimumSpanningTreeCounting", "reference", {0: 0.6, 2: 0.7, 3: 1.1, 4: 1.1, 8: 1.4}),
    ("RecursiveFunction", "reference", {3: 1.7, 4: 2.0, 8: 2.4}),
    ("BitAndZero_PathCounting", "gold", {0: 0.5, 5: 1.4, 8: 2.7}),
    ("NANDResultCounting", "gold", {3: 0.5, 5: 0.5, 7: 0.7, 8: 1.1}),
    ("SingingGirlStory", "gold", {0: 0.9, 3: 1.5, 5: 2.1}),
]


@pytest.mark.parametrize("name,key,levels", MAGNITUDES, ids=[m[0] for m in MAGNITUDES])
def test_answer_magnitude_matches_the_original(name, key, levels):
    for d, original in levels.items():
        ours = median_of(name, d, log10_of(key), 100)
        assert abs(ours - original) <= 0.5, f"{name} d={d}: median log10 {ours:.2f}, the original's {original}"


def test_recursive_function_is_the_original_recursion():
    f = recursive_function.evaluate
    for m, n in product(range(1, 9), repeat=2):  # the definition, checked on its own values
        h = m // 2
        assert f(m, n) == f(h, f(h, n // 2)) + f(h, f(h, n - 1))
    assert f(3, 0) == f(2, 1) and f(0, 7) == 8
    for m in range(recursive_function.M_LIMIT, 40):  # the pairs redrawn unevaluated are indeed over budget
        with pytest.raises(recursive_function.OverBudget):
            f(m, 1, recursive_function.WORK_BUDGET)
    assert all(registry.make("RecursiveFunction").generate(12, seed).data["M"] < recursive_function.M_LIMIT
               for seed in range(10))
    assert "mod" not in registry.make("RecursiveFunction").generate(3, 0).prompt


def test_bit_and_zero_path_counting_draws():
    lengths = set()
    for data in problems("BitAndZero_PathCounting", 3, 60):
        assert data["S"][0] == data["T"][0] == "1" and int(data["S"], 2) < int(data["T"], 2)
        assert data["gold"] not in (0, 1)
        lengths.add(len(data["T"]))
    assert len(lengths) > 1  # T's length is U[1, L] too, not always L


def test_nand_result_counting_range_is_two_sorted_draws():
    # L, R two independent uniform values: E[R - L] = (2^K - 1) / 3 (ours was (2^K - 1) / 4 before)
    k = 2 + 6
    gaps = [data["R"] - data["L"] for data in problems("NANDResultCounting", 6, 400)]
    assert abs(statistics.mean(gaps) / (2 ** k - 1) - 1 / 3) < 0.04


def test_singing_girl_story_intervals_have_length_at_least_two():
    for data in problems("SingingGirlStory", 5, 60):
        assert all(right - left >= 1 for left, right, _ in data["constraints"])


def test_card_coloring_counting_stick_breaking():
    # R = U[0, N], G = U[0, N-R], then the triple shuffled: one colour only with probability 1/(N+1) + 2/(N+1)^2
    n = 3 + 5
    single = [max(data["counts"]) == n for data in problems("CardColoringCounting", 5, 400)]
    assert abs(statistics.mean(single) - (1 / (n + 1) + 2 / (n + 1) ** 2)) < 0.05
