"""Minimum_DominatingInterval (held-out): choose K covered points paying for every interval that contains one."""

from rlve_jax.gym.environments._common import INVALID, distinct_in_range, grow_1p1, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment

K_DENSITIES = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)


def hit_cost(intervals: list[list[int]], points: list[int]) -> int:
    return sum(c for lo, hi, c in intervals if any(lo <= p <= hi for p in points))


def cheapest_points(n: int, intervals: list[list[int]], k: int) -> tuple[int, list[int]]:
    """DP over the last chosen point: an interval containing q and an earlier point also contains
    the previous chosen point p, so choosing q after p newly pays exactly for intervals with p < lo <= q <= hi."""
    covered = [any(lo <= p <= hi for lo, hi, _ in intervals) for p in range(n + 1)]

    def new_cost(p: int, q: int) -> int:
        return sum(c for lo, hi, c in intervals if p < lo <= q <= hi)

    infinity = float("inf")
    best = [[infinity] * (k + 1) for _ in range(n + 1)]  # best[q][j]: j points chosen, the last is q
    back = [[0] * (k + 1) for _ in range(n + 1)]
    for q in range(1, n + 1):
        if not covered[q]:
            continue
        best[q][1] = new_cost(0, q)
        for j in range(2, k + 1):
            for p in range(1, q):
                if best[p][j - 1] < infinity and best[p][j - 1] + new_cost(p, q) < best[q][j]:
                    best[q][j], back[q][j] = best[p][j - 1] + new_cost(p, q), p
    last = min(range(1, n + 1), key=lambda q: best[q][k])
    total, points = best[last][k], []
    for j in range(k, 0, -1):
        points.append(last)
        last = back[last][j]
    return total, sorted(points)


class Minimum_DominatingInterval(Environment):
    name = "Minimum_DominatingInterval"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty), "K_density": k} for k in K_DENSITIES]

    def sample(self, params, rng):
        n = params["N"]
        every = [[lo, hi] for lo in range(1, n + 1) for hi in range(lo, n + 1)]
        intervals = [[lo, hi, rng.randint(1, 10)] for lo, hi in rng.sample(every, min(len(every), 2 * n))]
        covered = sum(any(lo <= p <= hi for lo, hi, _ in intervals) for p in range(1, n + 1))
        k = max(1, int(params["K_density"] * covered))
        best, points = cheapest_points(n, intervals, k)
        return {"N": n, "intervals": intervals, "K": k, "optimum": best, "reference": " ".join(map(str, points))}

    def prompt(self, data):
        intervals = "\n".join(f"[{lo}, {hi}] cost {c}" for lo, hi, c in data["intervals"])
        return (
            f"There are {data['N']} points numbered 1 to {data['N']} on a line and the following intervals, each "
            f"with a cost:\n{intervals}\n\n"
            f"Choose exactly {data['K']} distinct points, each of which lies in at least one interval. You pay the "
            "cost of every interval that contains at least one chosen point (each such interval is paid once). "
            "Minimize the total cost.\n\n"
            f"Output Format: a single line with the {data['K']} chosen points separated by spaces."
        )

    def score(self, data, answer):
        points = parse_ints(answer)
        intervals = data["intervals"]
        if (len(points) != data["K"] or not distinct_in_range(points, 1, data["N"])
                or not all(any(lo <= p <= hi for lo, hi, _ in intervals) for p in points)):
            return INVALID
        return minimization_reward(data["optimum"], hit_cost(intervals, points), beta=5)

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # a repeated point
