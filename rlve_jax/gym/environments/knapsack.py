"""Knapsack: the 0/1 knapsack problem, choose items within the capacity maximizing the total value."""

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, grow_1p1, maximization_reward, parse_distinct_indices,
)


def best_items(weights: list[int], values: list[int], capacity: int) -> list[int]:
    """Exact DP over (items considered, capacity used) with a table for reconstruction."""
    n = len(weights)
    best = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(n):
        for c in range(capacity + 1):
            best[i + 1][c] = best[i][c]
            if weights[i] <= c:
                best[i + 1][c] = max(best[i + 1][c], best[i][c - weights[i]] + values[i])
    chosen, c = [], capacity
    for i in range(n - 1, -1, -1):
        if best[i + 1][c] != best[i][c]:
            chosen.append(i)
            c -= weights[i]
    return sorted(chosen)


class Knapsack(DropLastTokenPerturbation):
    name = "Knapsack"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        weights = [rng.randint(1, n) for _ in range(n)]
        values = [rng.randint(1, 2 * w) for w in weights]
        capacity = rng.randint(min(weights), sum(weights))
        chosen = best_items(weights, values, capacity)
        return {"W": weights, "V": values, "capacity": capacity, "optimum": sum(values[i] for i in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        weights, values = data["W"], data["V"]
        n = len(weights)
        return (
            f"There are {n} items numbered 0 to {n - 1}; item i has weight W[i] and value V[i]:\n"
            + "\n".join(f"W[{i}]={w} V[{i}]={v}" for i, (w, v) in enumerate(zip(weights, values)))
            + f"\nChoose a set of distinct items whose total weight is at most {data['capacity']} and whose total "
            "value is as large as possible.\n\n"
            "Output Format: a single line with the indices of the chosen items separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_distinct_indices(answer, len(data["W"]))
        if chosen is None or sum(data["W"][i] for i in chosen) > data["capacity"]:
            return -0.5
        return maximization_reward(sum(data["V"][i] for i in chosen), data["optimum"], beta=5)
