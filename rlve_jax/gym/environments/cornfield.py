"""Cornfield ("Fang Bobo's cornfield"): with at most K range +1 operations, make the longest
non-decreasing subsequence of the heights as long as possible."""

from rlve_jax.gym.environments._common import grow_1p1, longest_non_decreasing, maximization_reward, parse_int_rows
from rlve_jax.gym.env import Environment, FormatError


def best_operations(heights: list[int], k: int) -> tuple[int, list[list[int]]]:
    """Exact DP. Some optimum uses only suffix operations [L, N] (extending an operation to the end never
    breaks a non-decreasing run), so a kept element is raised by the number j of operations started at or
    before it: f[i][j] = 1 + max f[i'][j'] over i' < i, j' <= j, H[i'] + j' <= H[i] + j."""
    n = len(heights)
    length = [[0] * (k + 1) for _ in range(n)]
    came_from: list[list[tuple[int, int] | None]] = [[None] * (k + 1) for _ in range(n)]
    prefix_best = [[(0, -1)] * (k + 1) for _ in range(n)]  # prefix_best[i][j] = max over j' <= j of (f[i][j'], j')
    for i in range(n):
        for j in range(k + 1):
            best, origin = 0, None
            for p in range(i):
                cap = min(j, heights[i] + j - heights[p])
                if cap >= 0 and prefix_best[p][cap][0] > best:
                    best, origin = prefix_best[p][cap][0], (p, prefix_best[p][cap][1])
            length[i][j], came_from[i][j] = best + 1, origin
            previous = prefix_best[i][j - 1] if j else (0, -1)
            prefix_best[i][j] = max(previous, (length[i][j], j), key=lambda t: t[0])
    optimum, i, j = max((length[i][j], i, j) for i in range(n) for j in range(k + 1))
    chain = []
    while True:
        chain.append((i, j))
        if came_from[i][j] is None:
            break
        i, j = came_from[i][j]
    chain.reverse()
    operations, started = [], 0
    for i, j in chain:  # j - started more suffix operations start at this kept element
        operations += [[i + 1, n]] * (j - started)
        started = j
    return optimum, operations


def raised(heights: list[int], operations: list[list[int]]) -> list[int]:
    delta = [0] * (len(heights) + 1)
    for left, right in operations:
        delta[left - 1] += 1
        delta[right] -= 1
    result, running = [], 0
    for h, d in zip(heights, delta):
        running += d
        result.append(h + running)
    return result


class Cornfield(Environment):
    name = "Cornfield"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # redraw instances where doing nothing is already optimal
            heights = [rng.randint(1, 2 * n) for _ in range(n)]
            descent = sum(max(0, a - b) for a, b in zip(heights, heights[1:]))
            if descent == 0:
                continue
            k = rng.randint(1, descent)
            optimum, operations = best_operations(heights, k)
            if optimum > longest_non_decreasing(heights):
                break
        return {"heights": heights, "K": k, "optimum": optimum,
                "reference": "\n".join(f"{left} {right}" for left, right in operations)}

    def prompt(self, data):
        heights, k = data["heights"], data["K"]
        n = len(heights)
        return (
            f"You are given an array H of {n} integers (positions 1 to {n}): {' '.join(map(str, heights))}\n"
            f"You may perform at most {k} operations. In one operation you choose 1 <= L <= R <= {n} and add 1 "
            "to every H[i] with L <= i <= R. Maximize the length of the longest non-decreasing subsequence of "
            "the resulting array.\n\n"
            f"Output Format: one line per operation (at most {k} lines), each with two integers `L R` "
            "separated by a space."
        )

    def score(self, data, answer):
        heights = data["heights"]
        operations = parse_int_rows(answer)
        if any(len(row) != 2 for row in operations):
            raise FormatError("each line must hold L and R")
        if len(operations) > data["K"] or any(not 1 <= left <= right <= len(heights) for left, right in operations):
            return -0.5
        return maximization_reward(longest_non_decreasing(raised(heights, operations)), data["optimum"], beta=5)
