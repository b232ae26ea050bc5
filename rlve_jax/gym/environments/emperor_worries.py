"""EmperorWorries: fewest medal types so that neighbours on a cycle of generals share no type."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def feasible(needs: list[int], types: int) -> bool:
    """Can `types` types serve the cycle? Fix general 1's types as the first needs[0] types.

    For each next general, the number of its types taken from general 1's set ranges over an
    interval [low, high]: high uses as many as the previous general leaves free, low as few
    as the other types allow. The cycle closes iff the last general can use none of them.
    """
    first = needs[0]
    low = high = first
    for prev_need, need in zip(needs, needs[1:]):
        low, high = (max(0, need - (types - first - (prev_need - high))), min(need, first - low))
        if low > high:
            return False
    return low == 0


def min_medal_types(needs: list[int]) -> int:
    n = len(needs)
    lower = max(needs[i] + needs[(i + 1) % n] for i in range(n))
    if n % 2 == 0:
        return lower  # an even cycle is bipartite-like: the largest adjacent sum suffices
    upper = 3 * max(needs)
    while lower < upper:
        middle = (lower + upper) // 2
        if feasible(needs, middle):
            upper = middle
        else:
            lower = middle + 1
    return lower


class EmperorWorries(ExactIntegerEnvironment):
    name = "EmperorWorries"

    def levels(self, difficulty):
        k = 1 + difficulty
        return [{"K": k, "N": 2 * k}, {"K": k, "N": 2 * k + 1}]

    def sample(self, params, rng):
        n = params["N"]
        needs = [rng.randint(1, 2 * n) for _ in range(n)]
        return {"A": needs, "reference": str(min_medal_types(needs))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"{n} generals sit around a round table; general i is adjacent to general i+1, and general {n} "
            f"is adjacent to general 1. General i must receive A[i] medals, all of different types, where "
            f"A = {' '.join(map(str, data['A']))}.\n"
            "Two adjacent generals must not receive medals of a common type. What is the minimum number of "
            "medal types needed?\n\n"
            "Output Format: a single integer."
        )
