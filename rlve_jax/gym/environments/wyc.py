"""WYC (POI 2015 Wycieczki): the total weight of the K-th lightest walk in a digraph with weights 1-3."""

from rlve_jax.gym.environments._common import CountingEnvironment
from rlve_jax.gym.environments._graphs import structure_text


def kth_walk_weight(n: int, edges: list[list[int]], k: int) -> int | None:
    """Count walks by total weight: ending[x][v] = walks (0 edges allowed) of weight x ending at v. The
    answer is the least W with at least K walks of 1..W edges' weight; None if there are fewer than K walks
    (only possible without a cycle, when no walk weighs more than 3(n - 1))."""
    recent = [[0] * n, [0] * n, [1] * n]  # rows for weights x-3, x-2, x-1 (weight 0: the empty walks)
    total, weight = 0, 0
    while total < k:
        weight += 1
        row = [0] * n
        for s, t, w in edges:
            row[t] += recent[-w][s]
        recent = recent[1:] + [row]
        total += sum(row)
        if weight > 3 * n and not any(any(r) for r in recent):
            return None  # no walk of weight in three consecutive values: no cycle, so no heavier walks
    return weight


class WYC(CountingEnvironment):
    name = "WYC"
    positive_only = True  # "≤0 → -1"

    def levels(self, difficulty):
        return [{"MAX_K": 5 * 2 ** difficulty, "N": n} for n in range(2, 9)]

    def sample(self, params, rng):
        n = params["N"]
        pairs = [[s, t] for s in range(n) for t in range(n) if s != t]
        while True:  # redraw graphs with fewer than K walks
            edges = [[s, t, rng.randint(1, 3)] for s, t in rng.sample(pairs, rng.randint(1, len(pairs)))]
            k = rng.randint(1, params["MAX_K"])
            gold = kth_walk_weight(n, edges, k)
            if gold is not None:
                return {"N": n, "K": k, "edges": edges, "gold": gold}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            structure_text("directed graph", n, data["edges"], weight="weight", directed=True) +
            "Consider all walks in this graph with at least one edge: a walk may start and end at any vertex and "
            "may repeat vertices and edges; two walks are different if their sequences of edges differ. The weight "
            "of a walk is the sum of the weights of its edges (counted with repetition). Sort all walks by weight "
            f"in non-decreasing order. What is the weight of the {k}-th walk in this order?\n\n"
            "Output Format: a single integer."
        )
