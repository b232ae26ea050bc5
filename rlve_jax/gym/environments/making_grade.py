"""MakingGrade (held-out): the closest monotone sequence to A in L1 distance."""

from rlve_jax.gym.environments._common import INVALID, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def closest_non_decreasing(values: list[int]) -> tuple[int, list[int]]:
    """(cost, B): some optimal B uses only values of A; DP over (position, chosen value)."""
    levels = sorted(set(values))
    cost = [abs(values[0] - h) for h in levels]
    choices = []
    for a in values[1:]:
        best_index, best, nxt, arg = 0, cost[0], [], []
        for k, h in enumerate(levels):  # best over previous levels <= h, as a running minimum
            if cost[k] < best:
                best, best_index = cost[k], k
            nxt.append(best + abs(a - h))
            arg.append(best_index)
        choices.append(arg)
        cost = nxt
    k = min(range(len(levels)), key=cost.__getitem__)
    total, path = cost[k], [k]
    for arg in reversed(choices):
        k = arg[k]
        path.append(k)
    return total, [levels[k] for k in reversed(path)]


def closest_monotone(values: list[int]) -> tuple[int, list[int]]:
    up = closest_non_decreasing(values)
    down_cost, down = closest_non_decreasing([-v for v in values])
    return min(up, (down_cost, [-v for v in down]))


def is_monotone(b: list[int]) -> bool:
    pairs = list(zip(b, b[1:]))
    return all(x <= y for x, y in pairs) or all(x >= y for x, y in pairs)


class MakingGrade(Environment):
    name = "MakingGrade"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, n * n) for _ in range(n)]
        best, b = closest_monotone(values)
        return {"A": values, "optimum": best, "reference": " ".join(map(str, b))}

    def prompt(self, data):
        a = data["A"]
        return (
            f"You are given an array A of {len(a)} integers: {' '.join(map(str, a))}\n"
            f"Find an integer array B of the same length that is monotone (either non-decreasing or non-increasing) "
            "and minimizes the sum of |A[i] - B[i]| over all i.\n\n"
            f"Output Format: a single line with the {len(a)} integers of B separated by spaces."
        )

    def score(self, data, answer):
        b = parse_ints(answer)
        a = data["A"]
        if len(b) != len(a) or not is_monotone(b):
            return INVALID
        cost = sum(abs(x - y) for x, y in zip(a, b))
        return minimization_reward(data["optimum"], cost, beta=5)
