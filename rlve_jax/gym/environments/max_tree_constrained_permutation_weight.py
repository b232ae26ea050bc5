"""Max_TreeConstrainedPermutation_Weight (HNOI 2018 "Permutation"): order N weighted elements, every
element after its given predecessor (the constraints form a forest), maximizing sum W[P[i]] * i."""

from fractions import Fraction

from rlve_jax.gym.environments._common import grow_1p1, maximization_reward, parse_permutation
from rlve_jax.gym.env import Environment


def best_order(parents: list[int], weights: list[int]) -> list[int]:
    """Exact greedy: the block with the smallest average weight goes right after its parent's block, so
    merge it there and repeat (a virtual root 0 of weight 0 heads everything). Elements are 1-based."""
    n = len(weights)
    block_of = list(range(n + 1))  # block_of[v]: the top element of the block holding v
    sequence = {v: [v] for v in range(n + 1)}
    total = {v: ([0] + weights)[v] for v in range(n + 1)}
    parent = [0] + parents
    while len(sequence) > 1:
        top = min((v for v in sequence if v), key=lambda v: Fraction(total[v], len(sequence[v])))
        into = block_of[parent[top]]
        for v in sequence[top]:
            block_of[v] = into
        sequence[into] += sequence.pop(top)
        total[into] += total.pop(top)
    return sequence[0][1:]


def order_value(weights: list[int], order: list[int]) -> int:
    return sum(weights[v - 1] * position for position, v in enumerate(order, start=1))


class Max_TreeConstrainedPermutation_Weight(Environment):
    name = "Max_TreeConstrainedPermutation_Weight"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        weights = [rng.randint(1, n) for _ in range(n)]
        parents = [rng.randint(0, i - 1) for i in range(1, n + 1)]  # 0: no constraint; else an earlier element
        order = best_order(parents, weights)
        return {"W": weights, "A": parents, "optimum": order_value(weights, order),
                "reference": " ".join(map(str, order))}

    def prompt(self, data):
        weights, parents = data["W"], data["A"]
        n = len(weights)
        return (
            f"There are {n} elements numbered 1 to {n}; element i has weight W[i] and a value A[i]:\n"
            + "\n".join(f"W[{i}]={w} A[{i}]={a}" for i, (w, a) in enumerate(zip(weights, parents), start=1))
            + f"\nFind a permutation P[1], ..., P[{n}] of 1..{n} such that, for every element i with A[i] != 0, "
            "element A[i] appears before element i. Among such permutations, maximize "
            f"W[P[1]] * 1 + W[P[2]] * 2 + ... + W[P[{n}]] * {n}.\n\n"
            f"Output Format: a single line with P[1] P[2] ... P[{n}] separated by spaces."
        )

    def score(self, data, answer):
        weights, parents = data["W"], data["A"]
        order = parse_permutation(answer, len(weights), base=1)
        if order is None:
            return -0.5
        position = {v + 1: p for p, v in enumerate(order)}
        if any(a and position[a] > position[i] for i, a in enumerate(parents, start=1)):
            return -0.5
        return maximization_reward(order_value(weights, [v + 1 for v in order]), data["optimum"], beta=5)
