"""Axis_KCenter: choose K of N points on a line as centers, minimizing the total distance of all
points to their nearest center (the "post office" problem)."""

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, grow_1p1, minimization_reward, parse_distinct_indices,
)


def best_centers(positions: list[int], k: int) -> tuple[int, list[int]]:
    """Exact DP over the sorted points: each center serves a contiguous block and sits at its median."""
    order = sorted(range(len(positions)), key=positions.__getitem__)
    xs = [positions[i] for i in order]
    n = len(xs)

    def block_cost(i: int, j: int) -> int:  # points i..j-1 served by their median
        median = xs[(i + j - 1) // 2]
        return sum(abs(x - median) for x in xs[i:j])

    cost = [[block_cost(i, j) if i < j else 0 for j in range(n + 1)] for i in range(n + 1)]
    inf = float("inf")
    best = [[inf] * (n + 1) for _ in range(k + 1)]  # best[c][j]: first j points with c centers
    cut = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0
    for c in range(1, k + 1):
        for j in range(1, n + 1):
            for i in range(c - 1, j):
                if best[c - 1][i] + cost[i][j] < best[c][j]:
                    best[c][j], cut[c][j] = best[c - 1][i] + cost[i][j], i
    centers, j = [], n
    for c in range(k, 0, -1):
        i = cut[c][j]
        centers.append(order[(i + j - 1) // 2])
        j = i
    return best[k][n], sorted(centers)


def total_distance(positions: list[int], centers: list[int]) -> int:
    return sum(min(abs(x - positions[c]) for c in centers) for x in positions)


class Axis_KCenter(DropLastTokenPerturbation):
    name = "Axis_KCenter"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(1, n - 1)
        positions = sorted(rng.sample(range(5 * n + 1), n))
        optimum, centers = best_centers(positions, k)
        return {"positions": positions, "K": k, "optimum": optimum, "reference": " ".join(map(str, centers))}

    def prompt(self, data):
        positions, k = data["positions"], data["K"]
        listing = " ".join(f"X[{i}]={x}" for i, x in enumerate(positions))
        return (
            f"There are {len(positions)} points on a line, numbered 0 to {len(positions) - 1}, at positions: "
            f"{listing}\n"
            f"Choose exactly {k} distinct points as centers. Every point is served by its nearest center; "
            "minimize the total distance from all points to their nearest centers.\n\n"
            f"Output Format: a single line with the {k} indices of the chosen points, separated by spaces."
        )

    def score(self, data, answer):
        centers = parse_distinct_indices(answer, len(data["positions"]))
        if centers is None or len(centers) != data["K"]:
            return -0.5
        return minimization_reward(data["optimum"], total_distance(data["positions"], centers), beta=5)
