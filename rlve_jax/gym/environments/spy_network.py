"""SpyNetwork (the "spy network" bribery problem): the cheapest set of vertices (each has a cost) from which
every vertex of a digraph is reachable."""

from rlve_jax.gym.environments._common import drop_last_tokens, grow_1p1, parse_ints
from rlve_jax.gym.env import Environment

DENSITIES = (0.01, 0.02, 0.03, 0.05, 0.1, 0.15)  # kept when floor(density * N(N-1)) >= 1
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


def cheapest_sources(n: int, edges: list[list[int]], cost: list[int]) -> list[int]:
    """A vertex set reaches everything iff it meets every source strongly connected component (one no other
    component reaches); so take the cheapest vertex (lowest index on ties) of each such component."""
    reach = [reachable(n, edges, [v]) for v in range(n)]
    chosen = []
    for v in range(n):
        component = [u for u in range(n) if reach[v][u] and reach[u][v]]
        if v != component[0]:
            continue
        if any(reach[u][v] for u in range(n) if not reach[v][u]):
            continue  # reached from outside: not a source component
        chosen.append(min(component, key=lambda u: (cost[u], u)))
    return chosen


class SpyNetwork(Environment):
    name = "SpyNetwork"

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        return [{"N": n, "edge_density": rho, "dominated_probability": p}
                for rho in DENSITIES if int(rho * n * (n - 1)) >= 1 for p in DOMINATED]

    def sample(self, params, rng):
        """The original's instance: each spy is secretly "dominated" with the level's probability, and no arc
        leads from a dominated spy to a non-dominated one; floor(density * N(N-1)) allowed arcs (at most
        all of them) are drawn uniformly; every spy has a cost U[1, N]. The flags are never shown."""
        n = params["N"]
        dominated = [rng.random() < params["dominated_probability"] for _ in range(n)]
        allowed = [(s, t) for s in range(n) for t in range(n) if s != t and not (dominated[s] and not dominated[t])]
        count = min(len(allowed), int(params["edge_density"] * n * (n - 1)))
        edges = [list(arc) for arc in rng.sample(allowed, count)]
        rng.shuffle(edges)
        cost = [rng.randint(1, n) for _ in range(n)]
        chosen = cheapest_sources(n, edges, cost)
        return {"N": n, "edges": edges, "cost": cost, "optimum": sum(cost[v] for v in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        n = data["N"]
        arcs = "\n".join(f"{s} -> {t}" for s, t in data["edges"])
        costs = " ".join(f"{v}:{c}" for v, c in enumerate(data["cost"]))
        return (
            f"There are {n} spies, numbered 0 to {n - 1}. A line `s -> t` below means that spy s holds evidence "
            f"against spy t: once s is under your control, t can be brought under your control too.\n{arcs}\n\n"
            "Every spy accepts a bribe; the cost of each is listed as `spy:cost`:\n"
            f"{costs}\n\n"
            "Choose spies to bribe so that, following the evidence, every spy eventually comes under your "
            "control, at the minimum total cost.\n\n"
            "Output Format: a single line with the bribed spies, separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        n, cost = data["N"], data["cost"]
        if len(set(chosen)) != len(chosen) or any(not 0 <= v < n for v in chosen):
            return -0.5
        if not all(reachable(n, data["edges"], chosen)):
            return -0.3
        return (data["optimum"] / sum(cost[v] for v in chosen)) ** 3

    def perturb(self, problem, answer):
        """Drop a bribed spy: each one is the only way into its source component."""
        return drop_last_tokens(answer)
