"""Targeted tests for the graph environments of batch A: reward structure on hand-made instances
and exact solvers against brute force on tiny random graphs."""

import itertools
import random

import pytest

from rlve_jax.gym.environments._common import random_tree
from rlve_jax.gym.environments._graphs import random_connected_graph, random_pairs
from rlve_jax.gym.environments.coloring_counting import colors_used_total
from rlve_jax.gym.environments.cycle_counting import count_simple_cycles
from rlve_jax.gym.environments.graph_contain_tree_counting import count_tree_embeddings
from rlve_jax.gym.environments.link_beads import max_blue_length
from rlve_jax.gym.environments.max_tree_k_path_coverage import max_covered_vertices
from rlve_jax.gym.environments.minimum_spanning_tree_counting import count_minimum_spanning_trees
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, FormatError


def score(name, data, answer):
    """The verifier's reward, with a format error mapped to -1 as verify() does."""
    try:
        return registry.make(name).score(data, answer)
    except FormatError:
        return -1.0


TRIANGLE_WITH_TAIL = [[0, 1], [1, 2], [2, 0], [2, 3], [3, 4]]  # bridges: 2-3, 3-4


def test_bridge_partial_duplicate_and_odd():
    data = {"N": 5, "edges": TRIANGLE_WITH_TAIL, "bridges": [[2, 3], [3, 4]]}
    assert score("Bridge", data, "4 3 3 2") == 1.0
    assert score("Bridge", data, "2 3") == pytest.approx(0.5 ** 5)
    assert score("Bridge", data, "2 3 3 2") == -0.5  # the same bridge twice
    assert score("Bridge", data, "0 1") == -0.5  # on the triangle: not a bridge
    assert score("Bridge", data, "2 3 3") == -1.0


def test_check_all_cycle_xor_zero():
    env = registry.make("CheckAllCycleXorZero")
    yes = {"N": 3, "edges": [[0, 1, 1], [1, 2, 2], [2, 0, 3]], "reference": "YES"}
    assert env.score(yes, "YES") == 1.0 and env.score(yes, "NO") == 0.0
    assert env.score(yes, "yes") == -0.5


def test_counting_rewards():
    data = {"N": 4, "edges": [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]], "reference": "7"}
    assert count_simple_cycles(4, data["edges"]) == 7  # K4: four triangles and three 4-cycles
    assert score("CycleCounting", data, "7") == 1.0
    assert score("CycleCounting", data, "14") == pytest.approx(0.5 ** 10)
    assert score("CycleCounting", data, "-7") == -1.0
    assert score("CycleCounting", {"reference": "0"}, "0") == 1.0
    assert score("CycleCounting", {"reference": "0"}, "1") == 0.0
    assert score("ColoringCounting", {"reference": "10"}, "0") == -1.0
    assert score("GraphContainTreeCounting", {"reference": "24"}, "12") == pytest.approx(0.5 ** 10)


def test_counting_solvers_match_brute_force():
    rng = random.Random(0)
    for _ in range(40):
        n = rng.randint(2, 5)
        graph = random_pairs(n, rng.randint(1, n * (n - 1) // 2), rng)
        degree = [sum(v in e for e in graph) for v in range(n)]
        caps = [rng.randint(d, 2 * d) for d in degree]
        colorings = itertools.product(*(range(c + 1) for c in caps))
        expected = sum(len(set(c)) for c in colorings if all(c[u] != c[v] for u, v in graph))
        assert colors_used_total(n, graph, caps) == expected
        tree = random_tree(n, rng)
        edge_set = {tuple(sorted(e)) for e in graph}
        bijections = sum(all(tuple(sorted((p[a], p[b]))) in edge_set for a, b in tree)
                         for p in itertools.permutations(range(n)))
        assert count_tree_embeddings(n, tree, graph) == bijections


def test_spanning_tree_rewards():
    square = {"N": 4, "edges": [[0, 1], [1, 2], [2, 3], [3, 0]], "degrees": [1, 2, 2, 1]}
    assert score("DegreeFixed_SpanningTree", square, "0 1 1 2 2 3") == 1.0
    assert score("DegreeFixed_SpanningTree", square, "1 2 2 3 3 0") == pytest.approx((2 / 4) ** 5)
    assert score("DegreeFixed_SpanningTree", square, "0 1 1 2 0 2") == -0.5  # 0-2 is not an edge
    assert score("DegreeFixed_SpanningTree", square, "0 1 1 2") == -0.5  # does not span
    weighted = {"N": 4, "K": 1, "edges": [[0, 1, 1], [1, 2, 0], [2, 3, 1], [3, 0, 0]]}
    assert score("FixedOneEdgeNum_SpanningTree", weighted, "3 0 0 1 1 2") == 1.0
    assert score("FixedOneEdgeNum_SpanningTree", weighted, "0 1 1 2 2 3") == 0.0  # two weight-1 edges
    assert score("FixedOneEdgeNum_SpanningTree", weighted, "0 1 0 1 1 2") == -0.5


def test_permutation_rewards():
    iso = {"N": 3, "edges1": [[0, 1], [1, 2]], "edges2": [[2, 0], [0, 1]]}
    assert score("GraphIsomorphism", iso, "2 0 1") == 1.0
    assert score("GraphIsomorphism", iso, "0 1 2") == pytest.approx(0.5 ** 10)
    assert score("GraphIsomorphism", iso, "0 0 1") == -0.5
    ham = {"N": 4, "edges": [[0, 1], [1, 2], [2, 3]]}
    assert score("HamiltonianPathExistence", ham, "0 1 2 3") == 1.0
    assert score("HamiltonianPathExistence", ham, "0 1 3 2") == pytest.approx((1 / 3) ** 5)
    assert score("HamiltonianPathExistence", ham, "0 1 2") == -0.5


def test_link_beads_small_cases():
    assert max_blue_length(3, [[0, 1, 3], [1, 2, 4]]) == 7  # insert bead 1 into the red wire 0-2
    # a star: one Insert at the centre uses two wires, the longest pair possible
    assert max_blue_length(4, [[0, 1, 1], [0, 2, 2], [0, 3, 3]]) == 5
    assert max_blue_length(2, [[0, 1, 9]]) == 0


def test_longest_path_rewards():
    data = {"N": 3, "edges": [[0, 1, 2], [1, 2, 3], [0, 2, 1]], "optimum": 5}
    assert score("LongestPath", data, "0 1 2") == 1.0
    assert score("LongestPath", data, "0 2") == pytest.approx((1 / 5) ** 5)
    assert score("LongestPath", data, "0 1 0") == -0.5
    assert score("LongestPath", data, "2 1") == -0.5  # edges are directed


def test_coloring_rewards():
    path = {"N": 4, "edges": [[0, 1], [1, 2], [2, 3]]}
    assert score("MaximumAchromaticNumber", {**path, "optimum": 3}, "0 1 2 0") == 1.0
    assert score("MaximumAchromaticNumber", {**path, "optimum": 3}, "0 1 0 1") == pytest.approx((2 / 3) ** 5)
    assert score("MaximumAchromaticNumber", {**path, "optimum": 3}, "0 1 2 3") == -0.5  # colors 0 and 3 never meet
    assert score("MinimumChromaticNumber", {**path, "optimum": 2}, "0 1 0 1") == 1.0
    assert score("MinimumChromaticNumber", {**path, "optimum": 2}, "0 1 2 1") == pytest.approx((2 / 3) ** 5)
    assert score("MinimumChromaticNumber", {**path, "optimum": 2}, "0 0 1 0") == -0.5
    assert score("MinimumChromaticNumber", {**path, "optimum": 2}, "0 1 0 4") == -0.5  # color out of range
    assert score("MinimumHarmoniousChromaticNumber", {**path, "optimum": 3}, "0 1 2 0") == 1.0
    assert score("MinimumHarmoniousChromaticNumber", {**path, "optimum": 3}, "0 1 0 2") == -0.5  # pair 0-1 twice
    segments = {"N": 3, "segments": [[1, 2], [2, 3], [4, 5]], "optimum": 2}
    assert score("MinimumChromaticNumber_SegmentOverlap", segments, "0 1 0") == 1.0
    assert score("MinimumChromaticNumber_SegmentOverlap", segments, "0 1 2") == pytest.approx((2 / 3) ** 5)
    assert score("MinimumChromaticNumber_SegmentOverlap", segments, "0 0 1") == -0.5  # [1,2] and [2,3] touch


def test_selection_rewards():
    star = {"N": 4, "edges": [[0, 1], [0, 2], [0, 3], [1, 2]], "optimum": 3}
    assert score("MaximumClique", star, "2 1 0") == 1.0
    assert score("MaximumClique", star, "0 3") == pytest.approx((2 / 3) ** 5)
    assert score("MaximumClique", star, "1 2 3") == -0.5
    assert score("MaximumClique", star, "0 0") == -0.5
    costs = {"N": 4, "edges": [[0, 1], [0, 2], [0, 3]], "costs": [5, 1, 1, 1]}
    assert score("Minimum_DominatingSet", {**costs, "optimum": 3}, "0") == pytest.approx((3 / 5) ** 5)
    assert score("Minimum_DominatingSet", {**costs, "optimum": 3}, "3 1 2") == 1.0
    assert score("Minimum_DominatingSet", {**costs, "optimum": 3}, "1 2") == -0.5  # 3 is not dominated
    assert score("Minimum_DominatingSet", {**costs, "optimum": 3}, "1 1 2 3") == -0.5
    assert score("Minimum_VertexCover", {**costs, "optimum": 3}, "1 2 3") == 1.0
    assert score("Minimum_VertexCover", {**costs, "optimum": 3}, "1 2") == -0.5


def test_matching_and_partition_rewards():
    data = {"N": 4, "edges": [[0, 1, 3], [1, 2, 5], [2, 3, 3]], "optimum": 6}
    assert score("MaximumWeightMatching", data, "0 1 3 2") == 1.0
    assert score("MaximumWeightMatching", data, "1 2") == pytest.approx((5 / 6) ** 5)
    assert score("MaximumWeightMatching", data, "0 1 1 2") == -0.5
    assert score("MaximumWeightMatching", data, "0 2") == -0.5
    assert score("MaximumWeightMatching", data, "0 1 2") == -1.0
    part = {"N": 4, "K": 2, "edges": [[0, 1], [1, 2], [2, 3]], "optimum": 1}
    assert score("Minimum_CrossingEdges_GraphPartition", part, "0 0 1 1") == 1.0
    assert score("Minimum_CrossingEdges_GraphPartition", part, "0 1 0 1") == pytest.approx((1 / 3) ** 5)
    assert score("Minimum_CrossingEdges_GraphPartition", part, "0 0 0 0") == -0.5
    assert score("Minimum_CrossingEdges_GraphPartition", part, "0 0 1 2") == -0.5
    assert score("Minimum_CrossingEdges_GraphPartition", {**part, "optimum": 0}, "0 0 1 1") == 0.0


def test_tree_path_rewards():
    data = {"N": 3, "edges": [[0, 1, 4], [1, 2, 6]], "optimum": 6}
    assert score("MaxTreeXorPath", data, "1 2") == 1.0
    assert score("MaxTreeXorPath", data, "0 2") == pytest.approx((2 / 6) ** 5)
    assert score("MaxTreeXorPath", data, "0 0") == 0.0
    assert score("MaxTreeXorPath", data, "0 3") == -1.0
    assert score("MaxTreeXorPath", data, "1") == -1.0
    rng = random.Random(1)
    for _ in range(30):
        n = rng.randint(2, 7)
        tree = random_tree(n, rng)
        k = rng.randint(1, 2)
        paths = []
        for u, v in itertools.combinations_with_replacement(range(n), 2):
            reach = {u: None}
            stack = [u]
            while stack:
                x = stack.pop()
                for a, b in tree:
                    for s, t in ((a, b), (b, a)):
                        if s == x and t not in reach:
                            reach[t] = x
                            stack.append(t)
            covered, x = set(), v
            while x is not None:
                covered.add(x)
                x = reach[x]
            paths.append(covered)
        best = max(len(set().union(*choice)) for choice in itertools.combinations_with_replacement(paths, k))
        assert max_covered_vertices(n, tree, k) == best


def test_min_cost_max_flow_two_part_reward():
    edges = [[0, 1, 1, 1], [0, 2, 1, 1], [1, 3, 1, 1], [2, 3, 1, 1], [1, 2, 1, 5], [2, 1, 1, 5]]
    data = {"N": 4, "edges": edges, "max_flow": 2, "min_cost": 4}
    assert score("MinimumCost_MaximumFlow", data, "1 1 1 1 0 0") == 1.0
    with_cycle = score("MinimumCost_MaximumFlow", data, "1 1 1 1 1 1")  # adds a useless 1-2-1 cycle
    assert with_cycle == pytest.approx(0.5 + 0.5 * (4 / 14) ** 5)
    assert score("MinimumCost_MaximumFlow", data, "1 0 1 0 0 0") == pytest.approx(0.5 * 0.5 ** 5)
    assert score("MinimumCost_MaximumFlow", data, "1 1 1 0 0 0") == -0.5  # vertex 2 does not balance
    assert score("MinimumCost_MaximumFlow", data, "2 0 2 0 0 0") == -0.5  # over capacity
    assert score("MinimumCost_MaximumFlow", data, "1 1 1 1") == -1.0


def test_arborescence_rewards():
    data = {"N": 3, "root": 0, "edges": [[0, 1, 1], [0, 2, 5], [1, 2, 1], [2, 1, 1]], "optimum": 2}
    assert score("MinimumDirectedSpanningTree", data, "0 1 1 2") == 1.0
    assert score("MinimumDirectedSpanningTree", data, "0 1 0 2") == pytest.approx((2 / 6) ** 5)
    assert score("MinimumDirectedSpanningTree", data, "1 2 2 1") == -0.5  # a cycle, the root reaches nothing
    assert score("MinimumDirectedSpanningTree", data, "0 1 2 0") == -0.5  # 2 -> 0 is not an edge
    assert score("MinimumDirectedSpanningTree", data, "0 1 1") == -1.0


def test_minimum_ratio_path_rewards():
    data = {"N": 3, "edges": [[0, 1, 2], [1, 2, 3], [0, 2, 10]], "optimum": [1, 1]}
    assert score("MinimumRatioPath", data, "0 2") == 1.0
    assert score("MinimumRatioPath", data, "0 1 2") == pytest.approx((2 / 3) ** 5)
    assert score("MinimumRatioPath", data, "0 1") == -0.5  # wrong end
    assert score("MinimumRatioPath", data, "0 1 0 2") == pytest.approx((1 / 5) ** 5)  # walks are allowed


def test_minimum_spanning_tree_counting():
    square = [[0, 1, 1], [1, 2, 1], [2, 3, 1], [3, 0, 1]]
    assert count_minimum_spanning_trees(4, square) == 4
    assert count_minimum_spanning_trees(4, square + [[0, 2, 1]]) == 8
    assert count_minimum_spanning_trees(4, square[:3] + [[3, 0, 2]]) == 1
    data = {"MOD": 3, "reference": "1"}
    assert score("MinimumSpanningTreeCounting", data, "1") == 1.0
    assert score("MinimumSpanningTreeCounting", data, "2") == 0.0
    assert score("MinimumSpanningTreeCounting", data, "4") == -0.5
    rng = random.Random(2)
    for _ in range(20):
        n = rng.randint(2, 5)
        pairs = random_connected_graph(n, rng.randint(n - 1, n * (n - 1) // 2), rng)
        edges = [[u, v, rng.randint(1, 2)] for u, v in pairs]
        weights = {}
        for subset in itertools.combinations(edges, n - 1):
            parent = list(range(n))

            def find(x):
                while parent[x] != x:
                    x = parent[x]
                return x

            joined = 0
            for u, v, _ in subset:
                if find(u) != find(v):
                    parent[find(u)] = find(v)
                    joined += 1
            if joined == n - 1:
                total = sum(w for _, _, w in subset)
                weights[total] = weights.get(total, 0) + 1
        assert count_minimum_spanning_trees(n, edges) == weights[min(weights)]


@pytest.mark.parametrize("name", ["Bridge", "MaximumClique", "MinimumRatioPath", "MinimumCost_MaximumFlow"])
def test_huge_answers_are_bounded(name):
    """A 100 000-character answer of valid-looking integers is scored quickly, never crashes."""
    env = registry.make(name)
    problem = env.generate(3, 0)
    verdict = env.verify(problem, "<answer>" + "0 1 " * 25_000 + "</answer>", ANSWER_TAGS)
    assert -1.0 <= verdict.reward < 1.0
