"""BEZMinimalistSecurity (POI "Minimalist Security"): lower vertex values under caps so that every
edge keeps a prescribed sum, minimizing or maximizing the total (the direction is drawn per instance)."""

from collections import deque

from rlve_jax.gym.environments._common import (
    grow_1p1, maximization_reward, minimization_reward, parse_ints, weighted_adjacency,
)
from rlve_jax.gym.environments._graphs import RATIOS_1_3, ratio_levels
from rlve_jax.gym.env import Environment

def extreme_assignment(caps: list[int], edges: list[list[int]], maximize: bool) -> list[int]:
    """Exact: in a connected component every value is +-x + c of its root's value x, an odd cycle pins x,
    the caps bound it to an interval, and the component's sum is linear in x, so an end is optimal."""
    n = len(caps)
    neighbours = weighted_adjacency(n, edges)
    values = [0] * n
    sign, offset = [0] * n, [0] * n
    for root in range(n):
        if sign[root]:
            continue
        sign[root], component, pinned = 1, [root], None
        queue = deque([root])
        while queue:
            u = queue.popleft()
            for v, w in neighbours[u]:
                if not sign[v]:
                    sign[v], offset[v] = -sign[u], w - offset[u]
                    component.append(v)
                    queue.append(v)
                elif sign[u] + sign[v]:  # same signs: the edge fixes x
                    pinned = (w - offset[u] - offset[v]) // (sign[u] + sign[v])
        low = max(-offset[v] if sign[v] > 0 else offset[v] - caps[v] for v in component)
        high = min(caps[v] - offset[v] if sign[v] > 0 else offset[v] for v in component)
        slope = sum(sign[v] for v in component)
        if pinned is not None:
            x = pinned
        else:
            x = high if (slope > 0) == maximize else low
        for v in component:
            values[v] = sign[v] * x + offset[v]
    return values


class BEZMinimalistSecurity(Environment):
    name = "BEZMinimalistSecurity"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return ratio_levels(n, RATIOS_1_3)

    def sample(self, params, rng):
        n = params["N"]
        caps = [rng.randint(1, 2 * n) for _ in range(n)]
        planted = [rng.randint(0, cap) for cap in caps]
        pairs = rng.sample([(u, v) for u in range(n) for v in range(u + 1, n)], int(params["edge_ratio"] * n))
        edges = [[u, v, planted[u] + planted[v]] for u, v in pairs]
        maximize = rng.random() < 0.5
        values = extreme_assignment(caps, edges, maximize)
        return {"caps": caps, "edges": edges, "maximize": maximize, "optimum": sum(values),
                "reference": " ".join(map(str, values))}

    def prompt(self, data):
        caps, edges = data["caps"], data["edges"]
        n = len(caps)
        goal = "maximize" if data["maximize"] else "minimize"
        return (
            f"There are {n} vertices numbered 0 to {n - 1}; vertex i has a cap P[i]:\n"
            + " ".join(f"P[{i}]={p}" for i, p in enumerate(caps))
            + f"\nFind integers P'[0], ..., P'[{n - 1}] with 0 <= P'[i] <= P[i] for every i such that all of "
            "the following equations hold:\n"
            + "\n".join(f"P'[{u}] + P'[{v}] = {w}" for u, v, w in edges)
            + f"\nAmong all such choices, {goal} the sum P'[0] + P'[1] + ... + P'[{n - 1}]. "
            "(A solution is guaranteed to exist.)\n\n"
            f"Output Format: a single line with the {n} integers P'[0] P'[1] ... P'[{n - 1}], separated by spaces."
        )

    def score(self, data, answer):
        values, caps = parse_ints(answer), data["caps"]
        if len(values) != len(caps) or any(not 0 <= x <= cap for x, cap in zip(values, caps)):
            return -0.5
        if any(values[u] + values[v] != w for u, v, w in data["edges"]):
            return -0.5
        if data["maximize"]:
            return maximization_reward(sum(values), data["optimum"], beta=5)
        return minimization_reward(data["optimum"], sum(values), beta=5)
