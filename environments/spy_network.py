"""SpyNetwork (the "spy network" bribery problem): the cheapest set of bribable vertices from which every
vertex of a digraph is reachable."""

from environments._common import drop_last_tokens
from environments._graphs import random_pairs
from rlve_jax.env import Environment, grow_1p1, parse_ints, sweep

DENSITIES = sweep(0.01, 0.15, 0.01)
DOMINATED = (0.3, 0.4, 0.5, 0.6, 0.7)


def reachable(n: int, edges: list[list[int]], sources: list[int]) -> list[bool]:
    successors: list[list[int]] = [[] for _ in range(n)]
    for s, t in edges:
        successors[s].append(t)
    seen = [False] * n
    stack = list(sources)
    for v in stack:
        seen[v] = True
    while stack:
        for t in successors[stack.pop()]:
            if not seen[t]:
                seen[t] = True
                stack.append(t)
    return seen


def cheapest_sources(n: int, edges: list[list[int]], cost: list[int | None]) -> list[int]:
    """A vertex set reaches everything iff it meets every source strongly connected component (one no other
    component reaches); so take the cheapest bribable vertex of each such component."""
    reach = [reachable(n, edges, [v]) for v in range(n)]
    chosen = []
    for v in range(n):
        component = [u for u in range(n) if reach[v][u] and reach[u][v]]
        if v != component[0]:
            continue
        if any(reach[u][v] for u in range(n) if not reach[v][u]):
            continue  # reached from outside: not a source component
        chosen.append(min((u for u in component if cost[u] is not None), key=lambda u: (cost[u], u)))
    return chosen


class SpyNetwork(Environment):
    name = "SpyNetwork"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        return [{"N": n, "edge_density": rho, "dominated_probability": p} for rho in DENSITIES for p in DOMINATED]

    def sample(self, params, rng):
        n = params["N"]
        order = rng.sample(range(n), n)
        cost: list[int | None] = [None] * n
        edges = []
        for i, v in enumerate(order):
            if i == 0 or rng.random() >= params["dominated_probability"]:
                cost[v] = rng.randint(1, n)
            else:  # cannot be bribed: someone earlier in the order exposes it, so a solution exists
                edges.append([order[rng.randrange(i)], v])
        edges += random_pairs(n, int(params["edge_density"] * n * (n - 1)), rng, directed=True, exclude=edges)
        rng.shuffle(edges)
        chosen = cheapest_sources(n, edges, cost)
        return {"N": n, "edges": edges, "cost": cost, "optimum": sum(cost[v] for v in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        n = data["N"]
        arcs = "\n".join(f"{s} -> {t}" for s, t in data["edges"])
        bribable = " ".join(f"{v}:{c}" for v, c in enumerate(data["cost"]) if c is not None)
        return (
            f"There are {n} spies, numbered 0 to {n - 1}. A line `s -> t` below means that spy s holds evidence "
            f"against spy t: once s is under your control, t can be brought under your control too.\n{arcs}\n\n"
            "Only some spies accept a bribe; each is listed as `spy:cost` (the others cannot be bribed directly):\n"
            f"{bribable}\n\n"
            "Choose spies to bribe so that, following the evidence, every spy eventually comes under your "
            "control, at the minimum total cost.\n\n"
            "Output Format: a single line with the bribed spies, separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        n, cost = data["N"], data["cost"]
        if len(set(chosen)) != len(chosen) or any(not 0 <= v < n or cost[v] is None for v in chosen):
            return -0.5
        if not all(reachable(n, data["edges"], chosen)):
            return -0.3
        return (data["optimum"] / sum(cost[v] for v in chosen)) ** 3

    def perturb(self, problem, answer):
        """Drop a bribed spy: each one is the only way into its source component."""
        return drop_last_tokens(answer)
