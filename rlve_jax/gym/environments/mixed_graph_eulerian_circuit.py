"""MixedGraphEulerianCircuit: an Eulerian circuit of a mixed graph (directed edges only forward)."""

import random

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import fraction_reward, parse_ints


def euler_circuit(n: int, pairs: list[list[int]], start: int) -> list[int]:
    """Hierholzer's algorithm on an undirected connected graph with all degrees even."""
    incident: list[list[int]] = [[] for _ in range(n)]
    for index, (u, v) in enumerate(pairs):
        incident[u].append(index)
        incident[v].append(index)
    used = [False] * len(pairs)
    stack, circuit = [start], []
    while stack:
        u = stack[-1]
        while incident[u] and used[incident[u][-1]]:
            incident[u].pop()
        if incident[u]:
            index = incident[u].pop()
            used[index] = True
            a, b = pairs[index]
            stack.append(b if a == u else a)
        else:
            circuit.append(stack.pop())
    return circuit[::-1]


def random_eulerian_pairs(n: int, rng: random.Random) -> list[list[int]]:
    """A Hamiltonian cycle (for connectivity) plus a few edge-disjoint random cycles: all degrees even."""
    order = rng.sample(range(n), n)
    pairs = [[order[i], order[(i + 1) % n]] for i in range(n)]
    taken = {frozenset(p) for p in pairs}
    wanted, attempts = rng.randint(1, max(1, n // 2)), 0
    while wanted and attempts < 20 * n:  # small graphs may have no room for another disjoint cycle
        attempts += 1
        cycle = rng.sample(range(n), rng.randint(3, max(3, n // 2)))
        steps = [frozenset((cycle[i], cycle[(i + 1) % len(cycle)])) for i in range(len(cycle))]
        if not taken & set(steps):
            taken.update(steps)
            pairs += [[cycle[i], cycle[(i + 1) % len(cycle)]] for i in range(len(cycle))]
            wanted -= 1
    return pairs


class MixedGraphEulerianCircuit(Environment):
    name = "MixedGraphEulerianCircuit"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        pairs = random_eulerian_pairs(n, rng)
        rng.shuffle(pairs)
        circuit = euler_circuit(n, pairs, rng.randrange(n))
        edges = []  # [u, v, directed]: a directed edge points the way the planted circuit crosses it
        for u, v in zip(circuit, circuit[1:]):
            edges.append([u, v, 1] if rng.random() < 0.5 else sorted([u, v]) + [0])
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "reference": " ".join(map(str, circuit))}

    def prompt(self, data):
        n = data["N"]
        lines = "\n".join(f"{u} -> {v}" if directed else f"{u} - {v}" for u, v, directed in data["edges"])
        return (
            f"You are given a mixed graph with {n} vertices, labeled from 0 to {n - 1}, and {len(data['edges'])} "
            "edges. An edge written `u - v` is undirected and may be traversed in either direction; an edge "
            f"written `u -> v` is directed and may only be traversed from u to v.\n{lines}\n\n"
            "Find an Eulerian circuit: a closed walk that traverses every edge exactly once and returns to its "
            "starting vertex.\n\n"
            "Output Format: a single line with the vertices of the walk in order, separated by spaces; the last "
            "vertex must equal the first (e.g. `0 1 2 0`)."
        )

    def score(self, data, answer):
        walk = parse_ints(answer)
        if not walk:
            raise FormatError("empty walk")
        n = data["N"]
        if any(not 0 <= v < n for v in walk) or walk[0] != walk[-1]:
            return -0.5
        index = {}
        for i, (u, v, directed) in enumerate(data["edges"]):
            index[u, v] = i
            if not directed:
                index[v, u] = i
        uses = [0] * len(data["edges"])
        for step in zip(walk, walk[1:]):
            if step not in index:
                return -0.5
            uses[index[step]] += 1
        return fraction_reward(uses.count(1), len(uses), beta=10)
