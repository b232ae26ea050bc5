"""Targeted tests for the classical-algorithms batch: reward rules on hand-made instances, and the exact
solvers against brute force on tiny instances."""

import itertools
import random
from collections import deque
from functools import lru_cache

import pytest

from rlve_jax.gym.environments import (
    delta_nim_game, firework_show, inversion_pair, klo_blocks, max_grid_path_intersection, max_three_square_sum,
    min_inorder_binary_tree, multiple_flipping_game, splitting_game, stone_game, stu_well, tetris_attack,
    whack_a_mole,
)
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Problem


def reward(name: str, data: dict, answer: str) -> float:
    """Reward of `answer` on a hand-made instance."""
    problem = Problem(name, 0, 0, "", {}, data)
    return registry.make(name).verify(problem, f"<answer>{answer}</answer>", ANSWER_TAGS).reward


# ---------------------------------------------------------------------------
# Reward rules


def test_counting_answers():
    data = {"A": [1, 2], "K": 1, "reference": "3"}
    assert reward("BoundedMeanSubarrayCounting", data, "3") == 1.0
    assert reward("BoundedMeanSubarrayCounting", data, "2") == pytest.approx((2 / 3) ** 10)
    assert reward("BoundedMeanSubarrayCounting", data, "-3") == -1.0
    swaps = {"A": [0, 1], "B": [1, 0], "reference": "1"}
    assert reward("InversionPair", swaps, "0") == 0.0
    assert reward("InversionPair", {**swaps, "reference": "0"}, "0") == 1.0


def test_winner_words():
    data = {"piles": [1, 2], "reference": "Alice"}
    assert reward("DeltaNimGame", data, "Alice") == 1.0
    assert reward("DeltaNimGame", data, "Bob") == 0.0
    assert reward("DeltaNimGame", data, "Carol") == -0.5
    assert reward("DeltaNimGame", data, "") == -0.5


def test_ab_program():
    data = {"program": ["A#", "#A"], "reference": ""}
    assert reward("ABProgramSimulation", data, "") == 1.0
    assert reward("ABProgramSimulation", data, "A#") == 0.0
    assert reward("ABProgramSimulation", data, "A# C#") == -1.0


def test_binary_alternation():
    data = {"bits": "0011"}  # one swap suffices: 0011 -> 0101
    assert reward("BinaryAlternation", data, "1 2") == 1.0
    assert reward("BinaryAlternation", data, "0 1\n0 1\n1 2") == pytest.approx((1 / 3) ** 5)
    assert reward("BinaryAlternation", data, "0 1") == -0.5  # not alternating
    assert reward("BinaryAlternation", data, "1 9") == -0.5  # bad index
    assert reward("BinaryAlternation", data, "1 2 3") == -1.0


def test_bucket_sorting():
    data = {"A": [1, 1, 2, 3, 3], "modes": [1, 3]}
    assert reward("BucketSorting", data, "3") == 1.0
    assert reward("BucketSorting", data, "2") == 0.0
    assert reward("BucketSorting", data, "7") == -0.5


def test_eight_digit_puzzle():
    data = {"start": [[0, 1], [2, 3]], "target": [[1, 0], [2, 3]], "reference": "R"}
    assert reward("EightDigitPuzzle", data, "R") == 1.0
    assert reward("EightDigitPuzzle", data, "D") == pytest.approx((1 / 4) ** 10)  # only the 3 is in place
    assert reward("EightDigitPuzzle", data, "U") == -0.5  # leaves the grid
    assert reward("EightDigitPuzzle", data, "RX") == -1.0


def test_fbi_tree():
    data = {"bits": "01", "reference": "BIF"}
    assert reward("FBI_BinaryTree", data, "BIF") == 1.0
    assert reward("FBI_BinaryTree", data, "BII") == pytest.approx((2 / 3) ** 5)
    assert reward("FBI_BinaryTree", data, "BI") == -0.5
    assert reward("FBI_BinaryTree", data, "BIX") == -0.5


def test_josephus():
    data = {"N": 3, "M": 2, "gold": [2, 1, 3]}
    assert reward("Josephus", data, "2 1 3") == 1.0
    assert reward("Josephus", data, "2 3 1") == pytest.approx((1 / 3) ** 10)
    assert reward("Josephus", data, "2 2 3") == -0.5


def test_index_list_answers():
    bitonic = {"A": [1, 3, 2, 5], "best": 3}
    assert reward("LIS_LDS_Concatenation", bitonic, "0 1 2") == 1.0
    assert reward("LIS_LDS_Concatenation", bitonic, "0 1") == pytest.approx((2 / 3) ** 5)
    assert reward("LIS_LDS_Concatenation", bitonic, "0 2 1") == -0.5  # unsorted
    assert reward("LIS_LDS_Concatenation", bitonic, "1 2 3") == -0.5  # 3 > 2 < 5: not bitonic
    weighted = {"A": [2, 1, 3], "B": [1, 5, 2], "best": 7}
    assert reward("WeightedLIS", weighted, "1 2") == 1.0
    assert reward("WeightedLIS", weighted, "0 2") == pytest.approx((3 / 7) ** 5)
    assert reward("WeightedLIS", weighted, "0 1") == -0.5  # A decreases
    matching = {"A": [1, 1, 2], "best": 2}
    assert reward("Longest_MatchingSubsequence", matching, "1 3") == 1.0
    assert reward("Longest_MatchingSubsequence", matching, "3") == 0.0
    assert reward("Longest_MatchingSubsequence", matching, "4") == -0.5


def test_liz_lollipop():
    data = {"A": [2, 2], "gold": [[-1, -1], [1, 1], [-1, -1], [1, 2]]}
    assert reward("LIZ_Lollipop", data, "-1 -1\n2 2\n-1 -1\n1 2") == 1.0
    assert reward("LIZ_Lollipop", data, "-1 -1\n1 2\n-1 -1\n1 2") == pytest.approx((3 / 4) ** 5)
    assert reward("LIZ_Lollipop", data, "-1 -1\n2 2\n-1 -1") == -0.5  # a line missing
    assert reward("LIZ_Lollipop", data, "-1 -1\n2 3\n-1 -1\n1 2") == -0.5  # interval out of range


def test_longest_max_diff_interval():
    data = {"A": [1, 5, 2, 3], "K": 1, "reference": "2 4"}
    assert reward("LongestMaxDiffBoundedInterval", data, "2 4") == 1.0
    assert reward("LongestMaxDiffBoundedInterval", data, "0 1") == pytest.approx(0.5 ** 5)
    assert reward("LongestMaxDiffBoundedInterval", data, "1 3") == -0.2
    assert reward("LongestMaxDiffBoundedInterval", data, "3 3") == -0.5
    assert reward("LongestMaxDiffBoundedInterval", data, "1 2 3") == -1.0


def test_grid_answers():
    data = {"matrix": [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "K": 2, "gold": [[5, 6], [8, 9]]}
    assert reward("MatrixPooling", data, "5 6\n8 9") == 1.0
    assert reward("MatrixPooling", data, "5 6\n8 0") == pytest.approx(0.75 ** 5)
    assert reward("MatrixPooling", data, "5 6 7\n8 9 1") == -1.0
    bfs = {"grid": ["1X"], "gold": [[0, -1]]}
    assert reward("GridBFS", bfs, "0 -1") == 1.0
    assert reward("GridBFS", bfs, "0 1") == pytest.approx(0.5 ** 10)


def test_maze():
    data = {"maze": ["..", "#."], "reference": "RD"}
    assert reward("Maze", data, "RD") == 1.0
    assert reward("Maze", data, "RDUD") == pytest.approx(0.5 ** 3)
    assert reward("Maze", data, "R") == -0.2
    assert reward("Maze", data, "D") == -0.5  # a wall
    assert reward("Maze", data, "RDX") == -1.0


def test_min_xor_pair():
    data = {"A": [1, 2, 3], "best": 1, "reference": "0 2"}
    assert reward("MinXorPair", data, "1 2") == 1.0
    assert reward("MinXorPair", data, "0 1") == pytest.approx((1 / 3) ** 5)
    assert reward("MinXorPair", data, "2 0") == -0.5
    assert reward("MinXorPair", data, "0 1 2") == -1.0


def test_new_nim_game():
    data = {"heaps": [1, 2, 3, 3], "best": 4, "reference": "1 4"}
    assert reward("NewNimGame", data, "1 4") == 1.0
    assert reward("NewNimGame", data, "3 4") == pytest.approx((4 / 6) ** 3)
    assert reward("NewNimGame", data, "4") == -0.2  # 1 ^ 2 ^ 3 == 0 remains
    assert reward("NewNimGame", data, "1 1") == -0.5
    assert reward("NewNimGame", data, "1 2 3 4") == -0.5


def test_point_segment_matching():
    data = {"points": [1, 5], "segments": [[0, 2], [4, 6], [0, 9]], "best": 2}
    assert reward("MaximumPointSegmentMatching", data, "0 0\n1 1") == 1.0
    assert reward("MaximumPointSegmentMatching", data, "0 0") == pytest.approx(0.5 ** 5)
    assert reward("MaximumPointSegmentMatching", data, "0 0\n1 0") == -0.5  # segment reused
    assert reward("MaximumPointSegmentMatching", data, "1 0") == -0.5  # 5 is not in [0, 2]


def test_lexicographic_subsequence():
    data = {"A": [3, 1, 2, 1], "K": 2, "gold": [3, 2]}
    assert reward("MaximumLexicographicalOrderSubsequence", data, "3 2") == 1.0
    assert reward("MaximumLexicographicalOrderSubsequence", data, "3 1") == pytest.approx(0.5 ** 5)
    assert reward("MaximumLexicographicalOrderSubsequence", data, "2 3") == -0.5


def test_puzzle_moves():
    nine = {"start": [[1, 2], [3, 4]], "target": [[2, 1], [3, 4]], "row_K": 1, "col_K": 1, "reference": "row 0 1"}
    assert reward("NinePuzzle", nine, "row 0 1") == 1.0
    assert reward("NinePuzzle", nine, "column 0 1") == pytest.approx((1 / 4) ** 10)  # only the 4 is in place
    assert reward("NinePuzzle", nine, "row 0 2") == -0.5
    assert reward("NinePuzzle", nine, "row 0") == -1.0
    twiddle = {"start": [[1, 2, 5], [3, 4, 6]], "target": [[2, 4, 5], [1, 3, 6]], "K": 2, "reference": "0 0"}
    assert reward("TwiddlePuzzle", twiddle, "0 0") == 1.0
    assert reward("TwiddlePuzzle", twiddle, "") == pytest.approx((2 / 6) ** 5)  # only 5 and 6 in place
    assert reward("TwiddlePuzzle", twiddle, "0 2") == -0.5


def test_single_stack_sorting():
    data = {"N": 2, "target": [1, 0], "reference": "aabb"}
    assert reward("SingleStackSorting", data, "aabb") == 1.0
    assert reward("SingleStackSorting", data, "abab") == 0.0
    assert reward("SingleStackSorting", data, "aab") == -0.5  # incomplete
    assert reward("SingleStackSorting", data, "b") == -0.5  # pop from an empty stack
    assert reward("SingleStackSorting", data, "aabc") == -1.0


def test_tetris_attack():
    data = {"row": [1, 2, 3, 2, 1, 3], "best": 2}
    assert reward("TetrisAttack", data, "2 1") == 1.0  # 1 3 1 3, then 1 1 3 3 vanishes in a chain
    assert reward("TetrisAttack", data, "0 0 2 1") == pytest.approx(0.5 ** 5)
    assert reward("TetrisAttack", data, "2") == -0.2
    assert reward("TetrisAttack", data, "5") == -0.5
    assert reward("TetrisAttack", data, "2 1 0") == -0.5  # a swap on the empty row


def test_sequence_length_rules():
    assert reward("PreorderTraversal", {"inorder": [2, 1], "postorder": [2, 1], "gold": [1, 2]}, "1") == 0.0
    assert reward("SalesmanFatigue", {"S": [1], "A": [1], "gold": [3]}, "3 3") == -0.5
    assert reward("SlidingWindow", {"A": [3, 1, 2], "K": 2, "gold": [1, 1]}, "1 2") == pytest.approx(0.5 ** 10)


# ---------------------------------------------------------------------------
# Exact solvers against brute force on tiny instances

RNG = random.Random(0)


def test_klo_blocks_matches_search():
    for _ in range(30):
        n, k = RNG.randint(2, 4), RNG.randint(1, 4)
        heights = tuple(RNG.randint(0, 5) for _ in range(n))
        seen, queue, best = {heights}, deque([heights]), 0
        while queue:
            state = queue.popleft()
            best = max(best, max(len(run) for run in "".join("x" if h >= k else " " for h in state).split(" ")))
            for i in range(n):
                for j in (i - 1, i + 1):
                    if state[i] > k and 0 <= j < n:
                        nxt = list(state)
                        nxt[i], nxt[j] = nxt[i] - 1, nxt[j] + 1
                        if tuple(nxt) not in seen:
                            seen.add(tuple(nxt))
                            queue.append(tuple(nxt))
        assert klo_blocks.longest_reachable_run(list(heights), k) == best


def test_games_match_search():
    @lru_cache(maxsize=None)
    def delta_nim_wins(piles):
        return any(not delta_nim_wins(piles[:i] + (v,) + piles[i + 1:])
                   for i in range(len(piles)) for v in range(piles[i - 1] if i else 0, piles[i]))

    @lru_cache(maxsize=None)
    def splitting_wins(beans):
        n = len(beans)
        return any(not splitting_wins(tuple(c - (x == i) + (x == j) + (x == k) for x, c in enumerate(beans)))
                   for i in range(n) if beans[i] for j in range(i + 1, n) for k in range(j, n))

    def stone_wins(heaps, f):
        @lru_cache(maxsize=None)
        def wins(state):
            for index, h in enumerate(state):
                for m in range(2, h + 1) if h >= f else ():
                    q, r = divmod(h, m)
                    if not wins(tuple(sorted(state[:index] + state[index + 1:] + (q + 1,) * r + (q,) * (m - r)))):
                        return True
            return False
        return wins(tuple(sorted(heaps)))

    for _ in range(40):
        piles = tuple(sorted(RNG.randint(0, 5) for _ in range(RNG.randint(1, 4))))
        assert delta_nim_game.first_player_wins(list(piles)) == delta_nim_wins(piles)
        beans = tuple(RNG.randint(0, 2) for _ in range(RNG.randint(2, 3)))
        assert splitting_game.first_player_wins(list(beans)) == splitting_wins(beans)
        heaps, f = [RNG.randint(1, 7) for _ in range(RNG.randint(1, 3))], RNG.randint(1, 7)
        assert stone_game.first_player_wins(heaps, f) == stone_wins(heaps, f)

    n = 6

    @lru_cache(maxsize=None)
    def flipping_wins(mask):
        for x in range(1, n + 1):
            flipped = mask
            for multiple in range(x, n + 1, x) if mask >> x & 1 else ():
                flipped ^= 1 << multiple
                if not flipping_wins(flipped):
                    return True
        return False

    for mask in range(0, 1 << (n + 1), 2):
        white = [x for x in range(1, n + 1) if mask >> x & 1]
        assert multiple_flipping_game.first_player_wins(n, white) == flipping_wins(mask)


def test_tetris_attack_greedy_is_optimal():
    for _ in range(15):
        n = RNG.randint(2, 4)
        row = [v for v in range(1, n + 1) for _ in range(2)]
        while True:
            RNG.shuffle(row)
            if all(a != b for a, b in zip(row, row[1:])):
                break
        dist, queue = {tuple(row): 0}, deque([tuple(row)])
        while () not in dist:
            state = queue.popleft()
            for i in range(len(state) - 1):
                nxt = list(state)
                tetris_attack.swap(nxt, i)
                if tuple(nxt) not in dist:
                    dist[tuple(nxt)] = dist[state] + 1
                    queue.append(tuple(nxt))
        assert len(tetris_attack.greedy_swaps(row)) == dist[()]


def test_inversion_pair_matches_search():
    for _ in range(10):
        n = RNG.randint(2, 3)
        a, b = RNG.sample(range(2 * n), n), RNG.sample(range(2 * n), n)
        start = (tuple(a), tuple(b))
        dist, queue = {start: 0}, deque([start])
        while queue:
            state = queue.popleft()
            for side, i in itertools.product((0, 1), range(n - 1)):
                arr = list(state[side])
                arr[i], arr[i + 1] = arr[i + 1], arr[i]
                nxt = (tuple(arr), state[1]) if side == 0 else (state[0], tuple(arr))
                if nxt not in dist:
                    dist[nxt] = dist[state] + 1
                    queue.append(nxt)
        cost = {s: sum((x - y) ** 2 for x, y in zip(*s)) for s in dist}
        best = min(cost.values())
        assert inversion_pair.min_aligning_swaps(a, b) == min(d for s, d in dist.items() if cost[s] == best)


def test_stu_well_matches_enumeration():
    for _ in range(40):
        x = [RNG.randint(1, 4) for _ in range(RNG.randint(2, 4))]
        budget = RNG.randint(min(x), sum(x))
        best = min(max(abs(p - q) for p, q in zip(y, y[1:]))
                   for y in itertools.product(*(range(v + 1) for v in x)) if 0 in y and sum(x) - sum(y) <= budget)
        assert stu_well.min_max_difference(x, budget) == best


def test_firework_show_matches_enumeration():
    for _ in range(30):
        n = RNG.randint(2, 5)
        parents = [-1] + [RNG.randint(0, i - 1) for i in range(1, n)]
        weights = [0] + [RNG.randint(1, 3) for _ in range(1, n)]
        leaves = [v for v in range(1, n) if v not in parents]
        best = None
        for kept in itertools.product(*(range(w + 1) for w in weights[1:])):
            kept = (0, *kept)

            def depth(v):
                return 0 if v == 0 else kept[v] + depth(parents[v])

            if len({depth(leaf) for leaf in leaves}) == 1:
                cost = sum(weights) - sum(kept)
                best = cost if best is None else min(best, cost)
        assert firework_show.min_equalizing_cost(parents, weights) == best


def test_min_inorder_matches_enumeration():
    env = registry.make("MinInorderBinaryTree")
    for seed in range(20):
        data = env.generate(1, seed).data
        neighbours = {v: [] for v in range(1, data["N"] + 1)}
        for u, v in data["edges"]:
            neighbours[u].append(v)
            neighbours[v].append(u)

        def inorders(v, parent):
            below = [inorders(c, v) for c in neighbours[v] if c != parent]
            if not below:
                return [[v]]
            if len(below) == 1:
                return [s + [v] for s in below[0]] + [[v] + s for s in below[0]]
            return [x + [v] + y for x in below[0] for y in below[1]] + [y + [v] + x for x in below[0] for y in below[1]]

        best = min(o for r in neighbours if len(neighbours[r]) <= 2 for o in inorders(r, 0))
        assert min_inorder_binary_tree.smallest_inorder(data["N"], data["edges"]) == best


def test_grid_optimizers_match_enumeration():
    for _ in range(20):
        n, m = RNG.randint(4, 5), RNG.randint(4, 5)
        k = 2
        grid = [[RNG.randint(0, 5) for _ in range(m)] for _ in range(n)]
        corners = [(i, j) for i in range(n - k + 1) for j in range(m - k + 1)]
        value = {c: sum(grid[a][b] for a in range(c[0], c[0] + k) for b in range(c[1], c[1] + k)) for c in corners}
        apart = lambda p, q: abs(p[0] - q[0]) >= k or abs(p[1] - q[1]) >= k  # noqa: E731
        best = max(value[a] + value[b] + value[c] for a, b, c in itertools.combinations(corners, 3)
                   if apart(a, b) and apart(a, c) and apart(b, c))
        assert max_three_square_sum.best_three_squares(grid, k) == best

    n = 3
    paths = []
    for downs in itertools.combinations(range(2 * n - 2), n - 1):
        i = j = 0
        cells = {(0, 0)}
        for step in range(2 * n - 2):
            i, j = (i + 1, j) if step in downs else (i, j + 1)
            cells.add((i, j))
        paths.append(cells)
    for _ in range(10):
        grid = [[RNG.randint(0, 5) for _ in range(n)] for _ in range(n)]
        for count in (1, 2):
            best = max(sum(grid[i][j] for i, j in set().union(*combo))
                       for combo in itertools.product(paths, repeat=count))
            assert max_grid_path_intersection.max_collected(grid, count) == best


def test_whack_a_mole_matches_search():
    for _ in range(15):
        grid = [[RNG.randint(0, 2) for _ in range(3)] for _ in range(2)]
        if not any(map(any, grid)):
            continue
        best = None
        for r, c in itertools.product((1, 2), (1, 2, 3)):
            start = tuple(map(tuple, grid))
            dist, queue = {start: 0}, deque([start])
            while queue:
                state = queue.popleft()
                if not any(map(any, state)):
                    best = dist[state] if best is None else min(best, dist[state])
                    break
                for i, j in itertools.product(range(2 - r + 1), range(3 - c + 1)):
                    block = [(a, b) for a in range(i, i + r) for b in range(j, j + c)]
                    if all(state[a][b] for a, b in block):
                        nxt = [list(row) for row in state]
                        for a, b in block:
                            nxt[a][b] -= 1
                        nxt = tuple(map(tuple, nxt))
                        if nxt not in dist:
                            dist[nxt] = dist[state] + 1
                            queue.append(nxt)
        assert whack_a_mole.fewest_swings(grid) == best
