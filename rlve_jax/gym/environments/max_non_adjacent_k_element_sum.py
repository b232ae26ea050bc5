"""Max_NonAdjacent_KElementSum: pick exactly K pairwise non-adjacent positions with the largest sum."""

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, grow_1p1, maximization_reward, parse_distinct_indices,
)


def best_positions(values: list[int], k: int) -> list[int]:
    """Exact DP: best[i][j] = the largest sum of j non-adjacent picks among the first i values."""
    n, none = len(values), float("-inf")
    best = [[0] + [none] * k for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, k + 1):
            take = (best[i - 2][j - 1] if i >= 2 else (0 if j == 1 else none)) + values[i - 1]
            best[i][j] = max(best[i - 1][j], take)
    chosen, i, j = [], n, k
    while j:
        if best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            chosen.append(i - 1)
            i, j = i - 2, j - 1
    return sorted(chosen)


class Max_NonAdjacent_KElementSum(DropLastTokenPerturbation):
    name = "Max_NonAdjacent_KElementSum"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(2, n // 2)
        values = [rng.randint(1, n) for _ in range(n)]
        chosen = best_positions(values, k)
        return {"A": values, "K": k, "optimum": sum(values[i] for i in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        values, k = data["A"], data["K"]
        n = len(values)
        return (
            f"You are given an array A of {n} positive integers (indices 0 to {n - 1}): "
            f"{' '.join(map(str, values))}\n"
            f"Select exactly {k} distinct indices such that no two selected indices are adjacent (differ by 1), "
            "maximizing the sum of the selected elements.\n\n"
            f"Output Format: a single line with the {k} selected indices separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_distinct_indices(answer, len(data["A"]))
        if chosen is None or len(chosen) != data["K"] or any(i + 1 in chosen for i in set(chosen)):
            return -0.5
        return maximization_reward(sum(data["A"][i] for i in chosen), data["optimum"], beta=5)
