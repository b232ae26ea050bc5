"""MaxDifferentGroupPairDivision (APIO 2014 "Split the sequence"): make K splits, each scoring
sum(left part) * sum(right part) of the block it splits; maximize the total score."""

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, grow_1p1, maximization_reward, parse_distinct_indices,
)


def split_score(values: list[int], cuts: list[int]) -> int:
    """The total does not depend on the order of the splits: it is the sum of S_a * S_b over pairs of
    final blocks, i.e. (total^2 - sum of squared block sums) / 2."""
    bounds = [0] + sorted(cuts) + [len(values)]
    sums = [sum(values[a:b]) for a, b in zip(bounds, bounds[1:])]
    return (sum(sums) ** 2 - sum(s * s for s in sums)) // 2


def best_cuts(values: list[int], k: int) -> list[int]:
    """Exact DP: the fewest squared block sums with k + 1 blocks; returns the cut positions (after p items)."""
    n = len(values)
    prefix = [0]
    for v in values:
        prefix.append(prefix[-1] + v)
    inf = float("inf")
    least = [[inf] * (n + 1) for _ in range(k + 2)]
    cut = [[0] * (n + 1) for _ in range(k + 2)]
    least[0][0] = 0
    for blocks in range(1, k + 2):
        for j in range(blocks, n + 1):
            for i in range(blocks - 1, j):
                candidate = least[blocks - 1][i] + (prefix[j] - prefix[i]) ** 2
                if candidate < least[blocks][j]:
                    least[blocks][j], cut[blocks][j] = candidate, i
    cuts, j = [], n
    for blocks in range(k + 1, 1, -1):
        j = cut[blocks][j]
        cuts.append(j)
    return sorted(cuts)


class MaxDifferentGroupPairDivision(DropLastTokenPerturbation):
    name = "MaxDifferentGroupPairDivision"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(2, n - 2)
        values = [rng.randint(0, n) for _ in range(n)]
        cuts = best_cuts(values, k)
        return {"A": values, "K": k, "optimum": split_score(values, cuts), "reference": " ".join(map(str, cuts))}

    def prompt(self, data):
        values, k = data["A"], data["K"]
        n = len(values)
        return (
            f"You are given an array of {n} non-negative integers: {' '.join(map(str, values))}\n"
            f"You will split it {k} times. Initially the whole array is one block. A split chooses a position p "
            f"(1 <= p <= {n - 1}), meaning the boundary between the p-th and (p+1)-th elements, that is not yet a "
            "boundary between blocks; the block containing that boundary is cut into a left part and a right "
            "part, and you gain (sum of the left part) * (sum of the right part). Maximize the total gain of "
            f"the {k} splits.\n\n"
            f"Output Format: a single line with the {k} split positions p in the order you make the splits, "
            "separated by spaces."
        )

    def score(self, data, answer):
        values = data["A"]
        cuts = parse_distinct_indices(answer, len(values) - 1, base=1)
        if cuts is None or len(cuts) != data["K"]:
            return -0.5
        return maximization_reward(split_score(values, [c + 1 for c in cuts]), data["optimum"], beta=5)
