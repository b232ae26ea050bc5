"""MaxGridPathIntersection: K right/down paths collect cell values (each cell counted once); maximum total."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grid_text


def max_collected(grid: list[list[int]], paths: int) -> int:
    """Min-cost flow on split cells: one unit may collect a cell's value, any number may pass it for free."""
    n = len(grid)
    entry = [[2 * (i * n + j) for j in range(n)] for i in range(n)]  # each cell's exit node is entry + 1
    edges = []
    for i in range(n):
        for j in range(n):
            edges.append((entry[i][j], entry[i][j] + 1, 1, -grid[i][j]))
            edges.append((entry[i][j], entry[i][j] + 1, paths, 0))
            for a, b in ((i + 1, j), (i, j + 1)):
                if a < n and b < n:
                    edges.append((entry[i][j] + 1, entry[a][b], paths, 0))
    _, cost = min_cost_flow(2 * n * n, edges, entry[0][0], entry[n - 1][n - 1] + 1, paths)
    return -cost


def min_cost_flow(n: int, edges: list[tuple[int, int, int, int]], source: int, sink: int,
                  flow_limit: int) -> tuple[int, int]:
    """Successive shortest paths with Bellman-Ford (negative costs, no negative cycles): (flow, cost)."""
    graph: list[list[int]] = [[] for _ in range(n)]
    head, capacity, cost = [], [], []
    for u, v, cap, weight in edges:
        for a, b, c, w in ((u, v, cap, weight), (v, u, 0, -weight)):
            graph[a].append(len(head))
            head.append(b)
            capacity.append(c)
            cost.append(w)
    flow = total = 0
    while flow < flow_limit:
        dist, via = [None] * n, [-1] * n
        dist[source] = 0
        changed = True
        while changed:
            changed = False
            for u in range(n):
                if dist[u] is None:
                    continue
                for e in graph[u]:
                    v = head[e]
                    if capacity[e] > 0 and (dist[v] is None or dist[u] + cost[e] < dist[v]):
                        dist[v], via[v], changed = dist[u] + cost[e], e, True
        if dist[sink] is None:
            break
        push, v = flow_limit - flow, sink
        while v != source:
            push, v = min(push, capacity[via[v]]), head[via[v] ^ 1]
        v = sink
        while v != source:
            capacity[via[v]] -= push
            capacity[via[v] ^ 1] += push
            v = head[via[v] ^ 1]
        flow, total = flow + push, total + push * dist[sink]
    return flow, total


class MaxGridPathIntersection(ExactIntegerEnvironment):
    name = "MaxGridPathIntersection"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        paths = rng.randint(1, n // 2)
        grid = [[rng.randint(0, n) for _ in range(n)] for _ in range(n)]
        return {"grid": grid, "K": paths, "reference": str(max_collected(grid, paths))}

    def prompt(self, data):
        n = len(data["grid"])
        return (
            f"You are given a {n} x {n} grid of non-negative integers:\n{grid_text(data['grid'])}\n\n"
            f"A number of paths, K = {data['K']}, are walked one after another. Each path starts at the top-left "
            "cell and ends at "
            "the bottom-right cell, moving only right or down. A path collects the values of the cells it visits, "
            "and a collected cell becomes 0 (so later paths get nothing from it).\n"
            "What is the maximum total value the paths can collect?\n\n"
            "Output Format: a single integer."
        )
