"""MinPathCover_DAG: cover every edge of a weighted DAG with paths from vertex 1 at minimum total weight."""

import networkx as nx

from rlve_jax.gym.environments._graphs import structure_text
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints, parse_lines


def min_weight_edge_cover(n: int, edges: list[list[int]]) -> tuple[int, list[list[int]]]:
    """Minimum-cost circulation with a lower bound of 1 on every DAG edge: paths run 1 -> ... -> v, then
    v -> sink -> 1 at no cost. Lower bounds become node demands; the flow then splits into paths."""
    sink = n + 1
    graph = nx.DiGraph()
    graph.add_nodes_from(range(1, n + 2), demand=0)
    for u, v, w in edges:
        graph.add_edge(u, v, weight=w)
        graph.nodes[u]["demand"] += 1  # the forced unit leaves u and enters v
        graph.nodes[v]["demand"] -= 1
    for v in range(1, n + 1):
        graph.add_edge(v, sink, weight=0)
    graph.add_edge(sink, 1, weight=0)
    flow = nx.min_cost_flow(graph)
    remaining = {(u, v): flow[u][v] + 1 for u, v, _ in edges}
    to_sink = {v: flow[v][sink] for v in range(1, n + 1)}
    successors: dict[int, list[int]] = {v: [] for v in range(1, n + 1)}
    for u, v, _ in edges:
        successors[u].append(v)
    paths = []
    for _ in range(flow[sink][1]):
        path = [1]
        while True:
            step = next((v for v in successors[path[-1]] if remaining[path[-1], v] > 0), None)
            if step is None:
                to_sink[path[-1]] -= 1
                break
            remaining[path[-1], step] -= 1
            path.append(step)
        if len(path) > 1:
            paths.append(path)
    weight = {(u, v): w for u, v, w in edges}
    return sum(weight[step] for path in paths for step in zip(path, path[1:])), paths


class MinPathCover_DAG(Environment):
    name = "MinPathCover_DAG"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        order = [1] + rng.sample(range(2, n + 1), n - 1)  # a topological order with vertex 1 first
        edges = []
        for i in range(1, n):
            for u in rng.sample(order[:i], rng.randint(1, i)):  # every vertex gets at least one in-edge
                edges.append([u, order[i], rng.randint(1, n * (n - 1))])
        rng.shuffle(edges)
        optimum, paths = min_weight_edge_cover(n, edges)
        return {"N": n, "edges": edges, "optimum": optimum,
                "reference": "\n".join(" ".join(map(str, path)) for path in paths)}

    def prompt(self, data):
        n = data["N"]
        return (
            structure_text("directed acyclic graph", n, data["edges"], weight="weight", directed=True, first=1) +
            "Choose some paths in the graph, each starting at vertex 1 and following the edges (a path may end at "
            "any vertex), so that every edge belongs to at least one chosen path. The cost of a path is the sum "
            "of the weights of its edges; an edge used by several paths is paid for every time. Minimize the "
            "total cost of the chosen paths.\n\n"
            "Output Format: one path per line, each given as its vertices in order separated by spaces and "
            "starting with 1 (e.g. `1 3 4`)."
        )

    def score(self, data, answer):
        paths = [parse_ints(line) for line in parse_lines(answer)]
        weight = {(u, v): w for u, v, w in data["edges"]}
        if any(len(path) < 2 or path[0] != 1 for path in paths):
            return -0.5
        steps = [step for path in paths for step in zip(path, path[1:])]
        if any(step not in weight for step in steps):
            return -0.5
        if len(set(steps)) != len(weight):
            return -0.2
        return (data["optimum"] / sum(weight[step] for step in steps)) ** 5

    def perturb(self, problem, answer):
        """Walk the first path twice: every edge stays covered but the cost grows."""
        return answer + "\n" + answer.splitlines()[0]
