"""MinimumTreeWeightedDominatingAncestor: the root of a weighted tree is selected; select K more vertices
so that the sum of C[u] x (distance from u to its nearest selected ancestor) is minimal (IOI 2005 "Rivers")."""

from functools import cache

from rlve_jax.gym.environments._common import (
    INVALID, distinct_in_range, drop_last_tokens, grow_1p1, minimization_reward, parse_ints,
)
from rlve_jax.gym.env import Environment

Plan = tuple[int, tuple[int, ...]]  # (cost, selected vertices)


def merge(left: list[Plan | None], right: list[Plan | None], limit: int) -> list[Plan | None]:
    """Knapsack product: the best plan with k selections split between two independent parts."""
    merged: list[Plan | None] = [None] * (limit + 1)
    for i, a in enumerate(left):
        for j, b in enumerate(right[:limit + 1 - i]):
            if a is not None and b is not None and (merged[i + j] is None or a[0] + b[0] < merged[i + j][0]):
                merged[i + j] = (a[0] + b[0], a[1] + b[1])
    return merged


def best_selection(parent: list[int], length: list[int], cost: list[int], count: int) -> Plan:
    """Tree DP over (vertex u, nearest selected proper ancestor a): the best plan for u's subtree with
    k selections in it, either leaving u unselected (it pays C[u] x dist(u, a)) or selecting it."""
    n = len(parent)
    children: list[list[int]] = [[] for _ in range(n)]
    for v in range(1, n):
        children[parent[v]].append(v)
    depth = [0] * n
    stack = [0]
    while stack:
        u = stack.pop()
        for v in children[u]:
            depth[v] = depth[u] + length[v]
            stack.append(v)

    @cache
    def solve(u: int, ancestor: int) -> tuple[Plan | None, ...]:
        def below(owner: int) -> list[Plan | None]:
            plans: list[Plan | None] = [(0, ())] + [None] * count
            for v in children[u]:
                plans = merge(plans, list(solve(v, owner)), count)
            return plans

        unselected = [None if p is None else (p[0] + cost[u] * (depth[u] - depth[ancestor]), p[1])
                      for p in below(ancestor)]
        selected = [None] + [None if p is None else (p[0], (u,) + p[1]) for p in below(u)[:count]]
        return tuple(min((p for p in pair if p is not None), default=None, key=lambda p: p[0])
                     for pair in zip(unselected, selected))

    plans = [(0, ())] + [None] * count
    for v in children[0]:
        plans = merge(plans, list(solve(v, 0)), count)
    return plans[count]


def delivery_cost(parent: list[int], length: list[int], cost: list[int], selected: set[int]) -> int:
    total = 0
    for u in range(1, len(parent)):
        v, distance = u, 0
        while v not in selected and v != 0:
            distance += length[v]
            v = parent[v]
        total += cost[u] * distance
    return total


class MinimumTreeWeightedDominatingAncestor(Environment):
    name = "MinimumTreeWeightedDominatingAncestor"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        order = list(range(1, n + 1))
        rng.shuffle(order)
        parent, length = [-1] * (n + 1), [0] * (n + 1)
        for i, v in enumerate(order):
            parent[v] = rng.choice([0, *order[:i]])
            length[v] = rng.randint(1, 10)
        cost = [0] + [rng.randint(0, 10) for _ in range(n)]
        count = rng.randint(1, n - 1)
        best, chosen = best_selection(parent, length, cost, count)
        return {"parent": parent, "length": length, "C": cost, "K": count, "optimum": best,
                "reference": " ".join(map(str, sorted(chosen)))}

    def prompt(self, data):
        n = len(data["parent"]) - 1
        vertices = "\n".join(f"vertex {u}: parent {data['parent'][u]}, edge length {data['length'][u]}, "
                             f"C[{u}] = {data['C'][u]}" for u in range(1, n + 1))
        return (
            f"You are given a tree with {n + 1} vertices numbered 0 to {n}, rooted at vertex 0. For every other "
            f"vertex, its parent, the length of the edge to its parent, and its weight C are:\n{vertices}\n\n"
            f"Vertex 0 is already selected. Select exactly {data['K']} more distinct vertices from 1..{n}. Every "
            "vertex u then pays C[u] times the distance (sum of edge lengths) from u to its nearest selected "
            "ancestor, where u itself counts as its own ancestor (so a selected vertex pays 0). Minimize the total "
            "payment.\n\n"
            f"Output Format: a single line with the {data['K']} selected vertices separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        n = len(data["parent"]) - 1
        if len(chosen) != data["K"] or not distinct_in_range(chosen, 1, n):
            return INVALID
        cost = delivery_cost(data["parent"], data["length"], data["C"], set(chosen))
        return minimization_reward(data["optimum"], cost, beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
