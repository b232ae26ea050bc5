"""Path_NoGoingBack_Counting (C16): count walks of exactly T edges from 0 to N-1 that never
immediately walk back along the edge just used, modulo 10000."""

import numpy as np

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, parse_int

MOD = 10000


def count_walks(n: int, edges: list[list[int]], t: int) -> int:
    """Transfer matrix over directed edge states (u -> v); a step to (v -> w) needs w != u."""
    arcs = [(u, v) for u, v in edges] + [(v, u) for u, v in edges]
    index = {arc: i for i, arc in enumerate(arcs)}
    step = np.zeros((len(arcs), len(arcs)), dtype=np.int64)
    for (u, v), i in index.items():
        for (x, w), j in index.items():
            if x == v and w != u:
                step[i, j] = 1
    state = np.array([1 if u == 0 else 0 for u, _ in arcs], dtype=np.int64)  # walks of one edge
    power, remaining = step, t - 1
    while remaining:
        if remaining & 1:
            state = state @ power % MOD
        power = power @ power % MOD
        remaining >>= 1
    return int(sum(state[i] for (_, v), i in index.items() if v == n - 1) % MOD)


class Path_NoGoingBack_Counting(Environment):
    name = "Path_NoGoingBack_Counting"

    def levels(self, difficulty):
        return [{"MAX_M": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        m = rng.randint(3, params["MAX_M"])
        smallest_n = next(n for n in range(2, m + 2) if n * (n - 1) // 2 >= m)
        n = rng.randint(smallest_n, m + 1)  # a connected simple graph with n vertices and m edges exists
        path = rng.sample(range(n), n)  # planted spanning path keeps the graph connected
        edges = {tuple(sorted(e)) for e in zip(path, path[1:])}
        others = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in edges]
        edges |= set(rng.sample(others, m - len(edges)))
        edge_list = [list(e) if rng.random() < 0.5 else [e[1], e[0]] for e in sorted(edges)]
        rng.shuffle(edge_list)
        t = rng.randint(1, 2**n)
        return {"N": n, "edges": edge_list, "T": t, "reference": str(count_walks(n, edge_list, t))}

    def prompt(self, data):
        n, edges = data["N"], data["edges"]
        listing = "\n".join(f"({u}, {v})" for u, v in edges)
        return (
            f"You are given a connected undirected graph with {n} vertices labeled 0 to {n - 1} and "
            f"{len(edges)} edges:\n{listing}\n\n"
            f"Count the walks from vertex 0 to vertex {n - 1} that use exactly {data['T']} edges, where a walk "
            "may never go straight back along the edge it has just used (after moving from u to v by an "
            "edge, the next move may not be from v back to u along that same edge). Vertices and edges may "
            f"otherwise be repeated. Give the count modulo {MOD}.\n\n"
            f"Output Format: a single integer in the range [0, {MOD})."
        )

    def score(self, data, answer):
        value = parse_int(answer)
        if not 0 <= value < MOD:
            return -0.5
        return float(value == int(data["reference"]))

    def perturb(self, problem, answer):
        return str((int(answer) + 1) % MOD)
