"""Targeted tests for graph batch B: exact solvers against brute force, reward rules on hand-made instances."""

import functools
import itertools
import math
import random

import pytest

from rlve_jax.gym.environments._common import prufer_tree
from rlve_jax.gym.environments._graphs import all_pairs_distances, is_spanning_tree, prufer_connected_graph
from rlve_jax.gym.environments.min_path_cover_dag import min_weight_edge_cover
from rlve_jax.gym.environments.minimum_steiner_tree import steiner_tree
from rlve_jax.gym.environments.minimum_weighted_spanning_tree import depth_weighted_cost, min_depth_weighted_tree
from rlve_jax.gym.environments.mixed_graph_eulerian_circuit import random_eulerian_pairs
from rlve_jax.gym.environments.most_num_edge_non_self_isomorphism import asymmetric_tree_counts, min_asymmetric_edges
from rlve_jax.gym.environments.odd_visitation import odd_walk
from rlve_jax.gym.environments.patrol import shortest_patrol
from rlve_jax.gym.environments.pol_polarization import max_reachable_pairs
from rlve_jax.gym.environments.prime_graph_minimum_chromatic_number import optimal_coloring
from rlve_jax.gym.environments.shortest_path_count_construction import construction, shortest_path_count, vertex_cap
from rlve_jax.gym.environments.sum_spanning_tree_gcd import gcd_sum_over_spanning_trees
from rlve_jax.gym.environments.three_vertex_cycle_counting import triangles
from rlve_jax.gym.environments.tournament_longest_path import longest_path_from
from rlve_jax.gym.environments.tree_change_one_edge_diameter import best_swap, tree_diameter
from rlve_jax.gym.environments.tree_coloring import best_coloring, coloring_value
from rlve_jax.gym.environments.tree_distance_equal_triad_counting import equidistant_triples
from rlve_jax.gym.environments.tree_maximum_visited_vertex import best_walk
from rlve_jax.gym.environments.triumphal_arch import min_per_turn
from rlve_jax.gym.environments.vertex_k_center import covering_radius, k_center
from rlve_jax.gym.environments.wyc import kth_walk_weight
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem

RNG = random.Random(0)


def reward(name: str, data: dict, answer: str) -> float:
    problem = Problem(name, 0, 0, "", {}, data, 1.0)
    return registry.make(name).verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


def random_weighted_graph(n: int, low: int, high: int) -> list[list[int]]:
    pairs = prufer_connected_graph(n, RNG.randint(n - 1, n * (n - 1) // 2), RNG)
    return [[u, v, RNG.randint(low, high)] for u, v in pairs]


def adjacency_lists(n: int, edges) -> list[list[int]]:
    adjacent = [[] for _ in range(n)]
    for u, v, *_ in edges:
        adjacent[u].append(v)
        adjacent[v].append(u)
    return adjacent


# -- exact solvers against brute force ----------------------------------------------------------


def test_steiner_tree_matches_edge_subset_search():
    for _ in range(20):
        n = RNG.randint(4, 5)
        edges = random_weighted_graph(n, 1, n)
        terminals = sorted(RNG.sample(range(n), 3))
        best = math.inf
        for size in range(1, len(edges) + 1):
            for subset in itertools.combinations(edges, size):
                touched = sorted({v for e in subset for v in e[:2]})
                index = {v: i for i, v in enumerate(touched)}
                if set(terminals) <= set(touched) and len(subset) == len(touched) - 1 and is_spanning_tree(
                        len(touched), [(index[u], index[v]) for u, v, _ in subset]):
                    best = min(best, sum(w for *_, w in subset))
        optimum, tree = steiner_tree(n, edges, terminals)
        assert optimum == best
        answer = " ".join(f"{u} {v}" for u, v in tree)
        assert reward("MinimumSteinerTree", {"N": n, "edges": edges, "terminals": terminals,
                                             "optimum": optimum}, answer) == 1.0


def test_depth_weighted_spanning_tree_matches_enumeration():
    for _ in range(25):
        n = RNG.randint(2, 5)
        edges = random_weighted_graph(n, 0, n)
        best = min(depth_weighted_cost(n, edges, root, [e[:2] for e in tree])
                   for tree in itertools.combinations(edges, n - 1) if is_spanning_tree(n, [e[:2] for e in tree])
                   for root in range(n))
        optimum, root, tree = min_depth_weighted_tree(n, edges)
        assert optimum == best == depth_weighted_cost(n, edges, root, tree)


def test_path_cover_matches_multiplicity_enumeration():
    """Multiplicities f >= 1 decompose into paths from vertex 1 iff no other vertex sends out more than it gets."""
    for _ in range(20):
        n = RNG.randint(3, 4)
        order = [1] + RNG.sample(range(2, n + 1), n - 1)
        edges = [[u, order[i], RNG.randint(1, 9)] for i in range(1, n)
                 for u in RNG.sample(order[:i], RNG.randint(1, min(i, 2)))]
        best = math.inf
        for counts in itertools.product(range(1, 4), repeat=len(edges)):
            balance = {v: 0 for v in range(1, n + 1)}
            for (u, v, _), c in zip(edges, counts):
                balance[u] -= c
                balance[v] += c
            if all(b >= 0 for v, b in balance.items() if v != 1):
                best = min(best, sum(w * c for (_, _, w), c in zip(edges, counts)))
        assert min_weight_edge_cover(n, edges)[0] == best


def test_patrol_formula_matches_brute_force():
    """Over all choices of new roads (self-loops allowed), the doubled tree edges form the unique T-join."""
    for _ in range(40):
        n, k = RNG.randint(2, 7), RNG.randint(1, 2)
        edges = prufer_tree(n, RNG)
        adjacent = adjacency_lists(n, edges)
        pairs = [(u, v) for u in range(n) for v in range(u, n)]
        best = math.inf
        for roads in itertools.combinations_with_replacement(pairs, k):
            odd = [len(adjacent[v]) % 2 for v in range(n)]
            for u, v in roads:
                if u != v:
                    odd[u] ^= 1
                    odd[v] ^= 1
            doubled = sum(odd_below(adjacent, child, parent, odd) for parent, child in rooted_edges(adjacent))
            best = min(best, n - 1 + doubled + k)
        assert shortest_patrol(n, edges, k) == best


def rooted_edges(adjacent):
    order, parent = [0], {0: -1}
    for u in order:
        for v in adjacent[u]:
            if v not in parent:
                parent[v] = u
                order.append(v)
    return [(parent[v], v) for v in order[1:]]


def odd_below(adjacent, child, parent, odd) -> int:
    """1 if the subtree under the edge holds an odd number of odd-degree vertices."""
    stack, seen, total = [child], {parent, child}, 0
    while stack:
        v = stack.pop()
        total += odd[v]
        for u in adjacent[v]:
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return total % 2


def test_polarization_matches_all_orientations():
    for n in range(2, 9):
        edges = prufer_tree(n, RNG)
        best = 0
        for mask in range(1 << (n - 1)):
            arcs = [e if mask >> i & 1 else e[::-1] for i, e in enumerate(edges)]
            successors = [[t for s, t in arcs if s == v] for v in range(n)]
            pairs = 0
            for v in range(n):
                seen, stack = {v}, [v]
                while stack:
                    for t in successors[stack.pop()]:
                        if t not in seen:
                            seen.add(t)
                            stack.append(t)
                pairs += len(seen) - 1
            best = max(best, pairs)
        assert max_reachable_pairs(n, edges) == best


def test_triumphal_arch_matches_game_search():
    for _ in range(25):
        n = RNG.randint(2, 7)
        edges = prufer_tree(n, RNG)
        adjacent = adjacency_lists(n, edges)
        full = (1 << n) - 1

        @functools.cache
        def alice_wins(position: int, black: int, per_turn: int) -> bool:
            if black == full:
                return True
            white = [v for v in range(n) if not black >> v & 1]
            for chosen in itertools.combinations(white, min(per_turn, len(white))):
                after = black | sum(1 << v for v in chosen)
                if all(after >> u & 1 and alice_wins(u, after, per_turn) for u in adjacent[position]):
                    return True
            return False

        least = next(k for k in range(n + 1) if alice_wins(0, 1, k))
        assert min_per_turn(n, edges) == least


def test_most_edges_of_asymmetric_graphs():
    assert asymmetric_tree_counts(16)[1:] == (1, 0, 0, 0, 0, 0, 1, 1, 3, 6, 15, 29, 67, 139, 310, 667)  # A000220
    assert [min_asymmetric_edges(n) for n in range(6, 11)] == [6, 6, 6, 7, 8]
    data = {"N": 6, "reference": "9"}
    assert reward("MostNumEdge_NonSelfIsomorphism", data, "9") == 1.0
    assert reward("MostNumEdge_NonSelfIsomorphism", data, "10") == 0.0
    assert reward("MostNumEdge_NonSelfIsomorphism", data, "nine") == -1.0


def test_small_counting_solvers():
    for _ in range(20):
        n = RNG.randint(3, 9)
        edges = prufer_tree(n, RNG)
        dist = all_pairs_distances(n, edges)
        brute = sum(dist[a][b] == dist[b][c] == dist[a][c] for a, b, c in itertools.combinations(range(n), 3))
        assert equidistant_triples(n, edges) == brute
        graph = [e[:2] for e in random_weighted_graph(n, 1, 1)]
        present = {frozenset(e) for e in graph}
        assert triangles(n, graph) == sum(all(frozenset(p) in present for p in itertools.combinations(t, 2))
                                          for t in itertools.combinations(range(n), 3))


def test_gcd_sum_matches_spanning_tree_enumeration():
    for _ in range(15):
        n = RNG.randint(2, 5)
        edges = random_weighted_graph(n, 1, 12)
        brute = sum(math.gcd(*(w for *_, w in tree)) for tree in itertools.combinations(edges, n - 1)
                    if is_spanning_tree(n, [e[:2] for e in tree]))
        assert gcd_sum_over_spanning_trees(n, edges, 998244353) == brute % 998244353


def test_tree_swaps_and_colorings_match_brute_force():
    for _ in range(20):
        n = RNG.randint(4, 8)
        edges = prufer_tree(n, RNG)
        values = []
        for removed in range(n - 1):
            rest = [e for i, e in enumerate(edges) if i != removed]
            for u, v in itertools.combinations(range(n), 2):
                if is_spanning_tree(n, rest + [[u, v]]):
                    values.append(tree_diameter(n, rest + [[u, v]]))
        for maximize in (False, True):
            optimum, swap = best_swap(n, edges, maximize)
            assert optimum == (max(values) if maximize else min(values))
            data = {"N": n, "edges": edges, "maximize": maximize, "optimum": optimum}
            assert reward("TreeChangeOneEdgeDiameter", data, " ".join(map(str, swap))) == 1.0
        weighted = [[u, v, RNG.randint(1, n)] for u, v in edges]
        k = RNG.randint(1, n - 1)
        optimum, colored = best_coloring(n, weighted, k)
        assert optimum == coloring_value(n, weighted, colored) == max(
            coloring_value(n, weighted, list(c)) for c in itertools.combinations(range(n), k))


def test_tree_change_one_edge_diameter_may_put_the_removed_edge_back():
    """As in the original ("add a new edge (possibly the same edge)"): on a star no other swap keeps the diameter
    at 2, so the minimum needs the removed edge back, and the prompt says that is allowed."""
    star = {"N": 4, "edges": [[0, 1], [0, 2], [0, 3]], "maximize": False}
    optimum, swap = best_swap(4, star["edges"], maximize=False)
    assert optimum == 2 and swap[:2] == swap[2:]
    star["optimum"] = optimum
    assert reward("TreeChangeOneEdgeDiameter", star, "0 1 1 0") == 1.0
    assert reward("TreeChangeOneEdgeDiameter", star, "0 1 1 2") == pytest.approx((2 / 3) ** 5)
    prompt = registry.make("TreeChangeOneEdgeDiameter").prompt(star)
    assert "possibly the removed edge itself" in prompt and "new edge" not in prompt


def test_walk_and_path_solvers():
    for _ in range(30):
        n = RNG.randint(3, 7)
        edges = prufer_tree(n, RNG)
        adjacent = adjacency_lists(n, edges)
        steps = RNG.randint(2, 2 * (n - 1) - 1)
        states = {(0, 1)}
        for _ in range(steps):
            states = {(u, mask | 1 << u) for v, mask in states for u in adjacent[v]}
        walk = best_walk(n, edges, steps)
        assert len(walk) == steps + 1 and walk[0] == 0
        assert all(v in adjacent[u] for u, v in zip(walk, walk[1:]))
        assert len(set(walk)) == max(bin(mask).count("1") for _, mask in states)
        walk = odd_walk(n, edges)
        assert all(walk.count(v) % 2 for v in range(n)) and all(v in adjacent[u] for u, v in zip(walk, walk[1:]))
    for _ in range(100):
        n = RNG.randint(1, 9)
        beats = [[False] * n for _ in range(n)]
        for u, v in itertools.combinations(range(n), 2):
            beats[u][v] = RNG.random() < 0.5
            beats[v][u] = not beats[u][v]
        start = RNG.randrange(n)
        path = longest_path_from(n, beats, start)
        assert path[0] == start and len(set(path)) == len(path) and all(beats[u][v] for u, v in zip(path, path[1:]))
        longest = max(len(p) for size in range(1, n + 1) for p in itertools.permutations(range(n), size)
                      if p[0] == start and all(beats[u][v] for u, v in zip(p, p[1:]))) if n <= 6 else len(path)
        assert len(path) == longest


def test_k_center_matches_enumeration():
    for _ in range(30):
        n = RNG.randint(2, 7)
        dist = all_pairs_distances(n, random_weighted_graph(n, 1, n))
        k = RNG.randint(1, n - 1)
        radius, centres = k_center(n, dist, k)
        assert len(set(centres)) == k
        assert radius == covering_radius(dist, centres) == min(
            covering_radius(dist, list(c)) for c in itertools.combinations(range(n), k))


def test_kth_walk_weight_matches_enumeration():
    for _ in range(40):
        n = RNG.randint(2, 3)
        pairs = [[s, t] for s in range(n) for t in range(n) if s != t]
        edges = [[s, t, RNG.randint(1, 3)] for s, t in RNG.sample(pairs, RNG.randint(1, len(pairs)))]
        weights, frontier = [], [(t, w) for _, t, w in edges]
        while frontier:
            weights += [w for _, w in frontier]
            frontier = [(t, w + x) for v, w in frontier for s, t, x in edges if s == v and w + x <= 10]
        weights.sort()
        k = RNG.randint(1, 20)
        if k <= len(weights):
            assert kth_walk_weight(n, edges, k) == weights[k - 1]


def test_prime_graph_and_eulerian_generators():
    assert [len(set(optimal_coloring(n))) for n in range(1, 12)] == [1, 1, 2, 2, 3, 3, 4, 4, 4, 4, 4]
    for n in range(3, 12):
        pairs = random_eulerian_pairs(n, RNG)
        assert len({frozenset(p) for p in pairs}) == len(pairs)
        assert all(len(adjacency_lists(n, pairs)[v]) % 2 == 0 for v in range(n))


def test_shortest_path_count_constructions_fit_the_cap():
    for k in list(range(1, 400)) + [10 ** 6 + 3, 2 ** 30 - 1]:
        edges = construction(k)
        n = 1 + max(max(e) for e in edges)
        assert shortest_path_count(n, adjacency_lists(n, edges)) == k
        assert k < 12 or n < vertex_cap(k)


# -- reward rules on hand-made instances --------------------------------------------------------


def test_steiner_tree_rewards():
    data = {"N": 4, "terminals": [0, 2, 3], "optimum": 3,
            "edges": [[0, 1, 1], [1, 2, 1], [1, 3, 1], [0, 2, 5], [2, 3, 2]]}
    assert reward("MinimumSteinerTree", data, "0 1 1 2 1 3") == 1.0
    assert reward("MinimumSteinerTree", data, "0 1 1 2 2 3") == pytest.approx((3 / 4) ** 5)
    assert reward("MinimumSteinerTree", data, "0 1 1 2 3") == -1.0  # odd count
    assert reward("MinimumSteinerTree", data, "0 1 1 2") == -0.5  # misses terminal 3
    assert reward("MinimumSteinerTree", data, "0 3 1 2 1 3") == -0.5  # not an edge
    assert reward("MinimumSteinerTree", data, "0 2 1 3") == -0.5  # disconnected


def test_weighted_spanning_tree_rewards():
    data = {"N": 3, "edges": [[0, 1, 2], [1, 2, 3], [0, 2, 1]], "optimum": 3}
    assert reward("MinimumWeightedSpanningTree", data, "0 0 1 0 2") == 1.0  # 2*1 + 1*1
    assert reward("MinimumWeightedSpanningTree", data, "1 0 1 0 2") == pytest.approx((3 / 4) ** 5)  # 2*1 + 1*2
    assert reward("MinimumWeightedSpanningTree", data, "0 0 1") == -0.5  # not spanning
    assert reward("MinimumWeightedSpanningTree", data, "3 0 1 0 2") == -0.5  # bad root
    assert reward("MinimumWeightedSpanningTree", data, "0 1 0 2") == -1.0  # even count
    zero = {"N": 2, "edges": [[0, 1, 0]], "optimum": 0}
    assert reward("MinimumWeightedSpanningTree", zero, "1 0 1") == 1.0


def test_path_cover_rewards():
    data = {"N": 3, "edges": [[1, 2, 1], [2, 3, 1], [1, 3, 10]], "optimum": 12}
    assert reward("MinPathCover_DAG", data, "1 2 3\n1 3") == 1.0
    assert reward("MinPathCover_DAG", data, "1 2\n1 2 3\n1 3") == pytest.approx((12 / 13) ** 5)
    assert reward("MinPathCover_DAG", data, "1 2 3") == -0.2  # 1 -> 3 uncovered
    assert reward("MinPathCover_DAG", data, "2 3\n1 3\n1 2") == -0.5  # does not start at 1
    assert reward("MinPathCover_DAG", data, "1 3 2\n1 2 3") == -0.5  # 3 -> 2 is not an edge
    assert reward("MinPathCover_DAG", data, "1\n1 2 3\n1 3") == -0.5  # an empty path


def test_eulerian_circuit_rewards():
    data = {"N": 3, "edges": [[0, 1, 0], [1, 2, 1], [0, 2, 0]]}
    assert reward("MixedGraphEulerianCircuit", data, "0 1 2 0") == 1.0
    assert reward("MixedGraphEulerianCircuit", data, "0 2 1 0") == -0.5  # 2 -> 1 against the arc
    assert reward("MixedGraphEulerianCircuit", data, "0 1 2") == -0.5  # not closed
    assert reward("MixedGraphEulerianCircuit", data, "0 1 0") == 0.0  # 0-1 twice, nothing exactly once
    assert reward("MixedGraphEulerianCircuit", data, "0 1 2 0 1 2 0 2 0") == pytest.approx((0 / 3) ** 10)
    assert reward("MixedGraphEulerianCircuit", data, "") == -1.0


def test_tree_order_and_walk_rewards():
    path = {"N": 4, "edges": [[0, 1], [1, 2], [2, 3]]}
    assert reward("MultiDrink", path, "0 1 2 3") == 1.0
    assert reward("MultiDrink", path, "0 3 1 2") == pytest.approx((2 / 3) ** 5)
    assert reward("MultiDrink", path, "0 1 2 2") == -0.5
    assert reward("OddVisitation", path, "0 1 2 3") == 1.0
    assert reward("OddVisitation", path, "0 1 2 1 2 3") == 0.0
    assert reward("OddVisitation", path, "0 2") == -0.5
    walk = {**path, "M": 3, "optimum": 4}
    assert reward("TreeMaximumVisitedVertex", walk, "0 1 2 3") == 1.0
    assert reward("TreeMaximumVisitedVertex", walk, "0 1 0 1") == pytest.approx((2 / 4) ** 3)
    assert reward("TreeMaximumVisitedVertex", walk, "1 2 3 2") == -0.5
    assert reward("TreeMaximumVisitedVertex", walk, "0 1 2") == -0.5


def test_power_shortcut_rewards():
    data = {"N": 5, "K": 2, "edges": [[0, 1], [1, 2], [2, 3], [3, 4]], "optimum": 1}
    assert reward("PowerShortcut", data, "0 4") == 1.0  # a walk of 4 = 2^2 edges
    assert reward("PowerShortcut", data, "0 2 4") == pytest.approx(0.5 ** 5)
    assert reward("PowerShortcut", data, "0 3 4") == -0.5  # 3 edges is no power of two
    assert reward("PowerShortcut", data, "0 2") == -0.5


def test_coloring_and_construction_rewards():
    data = {"N": 5, "optimum": 3}
    assert reward("PrimeGraph_MinimumChromaticNumber", data, "1 1 2 2 3") == 1.0
    assert reward("PrimeGraph_MinimumChromaticNumber", data, "1 2 3 4 5") == pytest.approx((3 / 5) ** 5)
    assert reward("PrimeGraph_MinimumChromaticNumber", data, "1 1 1 2 3") == -0.5  # 1 and 3 differ by 2
    assert reward("PrimeGraph_MinimumChromaticNumber", data, "1 1 2 2") == -0.5
    small, square = {"K": 2, "cap": None}, "4\nNNYY\nNNYY\nYYNN\nYYNN"  # 1-3-2 and 1-4-2
    assert reward("ShortestPathCountConstruction", small, square) == 1.0
    assert reward("ShortestPathCountConstruction", small, "4\nN N Y Y\nNNYY\nYYNN\nYYNN") == 1.0
    assert reward("ShortestPathCountConstruction", {"K": 4, "cap": None}, square) == pytest.approx(0.5 ** 10)
    assert reward("ShortestPathCountConstruction", small, "4\nNNYY\nNNYY\nYYNN\nYNNN") == -0.5  # one-way edge
    assert reward("ShortestPathCountConstruction", small, "4\nNNYY\nNNYY\nYYNN") == -1.0
    assert reward("ShortestPathCountConstruction", small, "1\nN") == -1.0
    capped = {"K": 12, "cap": 14}
    fourteen = "\n".join(["14"] + ["N" * 14] * 14)
    assert reward("ShortestPathCountConstruction", capped, fourteen) == -0.5
    assert reward("ShortestPathCountConstruction", capped, "2\nNN\nNN") == 0.0  # no path at all


def test_spy_network_rewards():
    data = {"N": 3, "edges": [[0, 1], [1, 2]], "cost": [5, 7, 1], "optimum": 5}
    assert reward("SpyNetwork", data, "0") == 1.0
    assert reward("SpyNetwork", data, "0 2") == pytest.approx((5 / 6) ** 3)
    assert reward("SpyNetwork", data, "2") == -0.3
    assert reward("SpyNetwork", data, "0 1") == pytest.approx((5 / 12) ** 3)  # any spy may be bribed
    assert reward("SpyNetwork", data, "0 0") == -0.5
    assert reward("SpyNetwork", data, "0 3") == -0.5


def test_ordering_rewards():
    data = {"N": 3, "constraints": [[0, 1], [1, 2], [0, 2]]}
    assert reward("TopologicalSort", data, "0 1 2") == 1.0
    assert reward("TopologicalSort", data, "1 0 2") == pytest.approx((2 / 3) ** 10)
    assert reward("TopologicalSort", data, "0 1 1") == -0.5
    tournament = {"N": 3, "S": 0, "edges": [[0, 1], [1, 2], [0, 2]], "optimum": 2}
    assert reward("Tournament_LongestPath", tournament, "0 1 2") == 1.0
    assert reward("Tournament_LongestPath", tournament, "0 2") == pytest.approx(0.5 ** 5)
    assert reward("Tournament_LongestPath", tournament, "1 2") == -0.5
    assert reward("Tournament_LongestPath", tournament, "0 2 1") == -0.5
    assert reward("Tournament_LongestPath", tournament, "") == -1.0
    assert reward("Tournament_LongestPath", {**tournament, "S": 2, "optimum": 0}, "2") == 1.0


def test_tree_objective_rewards():
    path = {"N": 3, "edges": [[0, 1, 1], [1, 2, 1]], "L": 0, "optimum": 1}
    assert reward("TreeAddOneEdgeDiameter", path, "0 2") == 1.0
    assert reward("TreeAddOneEdgeDiameter", path, "1 1") == pytest.approx(0.5 ** 5)
    assert reward("TreeAddOneEdgeDiameter", path, "0 3") == -0.5
    assert reward("TreeAddOneEdgeDiameter", path, "0 1 2") == -1.0
    flat = {"N": 2, "edges": [[0, 1, 0]], "L": 0, "optimum": 0}
    assert reward("TreeAddOneEdgeDiameter", flat, "0 1") == 1.0
    center = {"N": 3, "edges": [[0, 1, 1], [1, 2, 1]], "C": [1, 1, 1], "optimum": 2}
    assert reward("TreeCenter", center, "1") == 1.0
    assert reward("TreeCenter", center, "0") == pytest.approx((2 / 3) ** 8)
    assert reward("TreeCenter", center, "3") == -1.0
    star = {"N": 4, "edges": [[0, 1], [0, 2], [0, 3]], "maximize": True, "optimum": 3}
    assert reward("TreeChangeOneEdgeDiameter", star, "0 1 2 1") == 1.0  # a path 1-2-0-3
    assert reward("TreeChangeOneEdgeDiameter", star, "0 1 0 1") == pytest.approx((2 / 3) ** 5)
    assert reward("TreeChangeOneEdgeDiameter", star, "1 2 0 1") == -0.5  # not an edge
    assert reward("TreeChangeOneEdgeDiameter", star, "0 1 0 2") == -0.5  # closes a cycle
    coloring = {"N": 3, "K": 1, "edges": [[0, 1, 1], [1, 2, 1]], "optimum": 2}
    assert reward("TreeColoring", coloring, "1") == 1.0  # the white pair (0, 2) is 2 apart
    assert reward("TreeColoring", coloring, "0") == pytest.approx(0.5 ** 2)  # the white pair (1, 2) is 1 apart
    assert reward("TreeColoring", coloring, "0 1") == -0.5
    kcenter = {"N": 3, "K": 1, "edges": [[0, 1, 1], [1, 2, 1]], "optimum": 1}
    assert reward("Vertex_KCenter", kcenter, "1") == 1.0
    assert reward("Vertex_KCenter", kcenter, "0") == pytest.approx(0.5 ** 5)
    assert reward("Vertex_KCenter", kcenter, "1 1") == -0.5


def test_partition_and_list_rewards():
    data = {"N": 2, "K": 2, "edges": [[0, 1], [1, 2], [2, 3]]}
    assert reward("TreeEvenPartitioning", data, "0 1\n2 3") == 1.0
    assert reward("TreeEvenPartitioning", data, "0 2\n1 3") == 0.0
    assert reward("TreeEvenPartitioning", data, "0 3\n1 2") == pytest.approx(0.5 ** 5)
    assert reward("TreeEvenPartitioning", data, "0 1\n1 3") == -0.5
    assert reward("TreeEvenPartitioning", data, "0 1 2 3") == -1.0
    xor = {"N": 3, "edges": [[0, 1, 2], [1, 2, 2]], "deletion": [0, 1], "gold": [1, 0, 0]}
    assert reward("TreeDynamic_XORZeroPath", xor, "1 0 0") == 1.0
    assert reward("TreeDynamic_XORZeroPath", xor, "1 1 0") == pytest.approx((2 / 3) ** 5)
    assert reward("TreeDynamic_XORZeroPath", xor, "1 0") == -0.5


def test_counting_rewards():
    assert reward("ThreeVertexCycleCounting", {"gold": 4}, "4") == 1.0
    assert reward("ThreeVertexCycleCounting", {"gold": 4}, "2") == pytest.approx(0.5 ** 10)
    assert reward("ThreeVertexCycleCounting", {"gold": 0}, "0") == 1.0
    assert reward("Tree_DistanceEqualTriad_Counting", {"gold": 3}, "-3") == -1.0
    assert reward("WYC", {"gold": 5}, "0") == -1.0  # "≤0 → -1"
    assert reward("WYC", {"gold": 5}, "10") == pytest.approx(0.5 ** 10)
    assert reward("SumSpanningTreeGCD", {"mod": 998244353, "gold": 7}, "998244360") == -0.5
