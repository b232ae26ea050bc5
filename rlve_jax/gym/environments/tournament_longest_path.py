"""Tournament_LongestPath: the longest simple path from a given vertex S in a tournament."""

from rlve_jax.gym.environments._common import edge_lines, parse_ints
from rlve_jax.gym.env import Environment, FormatError

REVERSAL_PROBABILITY = 0.3


def insertion_path(vertices: list[int], beats: list[list[bool]]) -> list[int]:
    """A Hamiltonian path of a tournament: insert each vertex before the first vertex it beats."""
    path: list[int] = []
    for v in vertices:
        spot = next((i for i, u in enumerate(path) if beats[v][u]), len(path))
        path.insert(spot, v)
    return path


def hamiltonian_cycle(vertices: list[int], beats: list[list[bool]]) -> list[int]:
    """A Hamiltonian cycle of a strong tournament (Camion), grown from a Hamiltonian path p: close the cycle
    at the last p[j] beating p[0]; then take the next path vertex with an arc back into the cycle, and splice
    it (with any vertices before it, which the whole cycle beats) in front of the cycle vertex it beats."""
    if len(vertices) == 1:
        return list(vertices)
    path = insertion_path(vertices, beats)
    end = max(j for j in range(len(path)) if beats[path[j]][path[0]])
    cycle, rest = path[:end + 1], path[end + 1:]
    while rest:
        k = next(i for i, v in enumerate(rest) if any(beats[v][c] for c in cycle))
        segment, rest = rest[:k + 1], rest[k + 1:]
        # a slot whose entry beats segment[0] and whose exit segment[-1] beats: it exists because some cycle
        # vertex beats segment[0] (for k > 0 all do; for k = 0 the previous path vertex does) and segment[-1]
        # beats some cycle vertex
        slot = next(i for i in range(len(cycle))
                    if beats[cycle[i - 1]][segment[0]] and beats[segment[-1]][cycle[i]])
        cycle = cycle[:slot] + segment + cycle[slot:]
    return cycle


def longest_path_from(n: int, beats: list[list[bool]], start: int) -> list[int]:
    """Every vertex reachable from S can be visited: S's strong component has a Hamiltonian cycle, and all
    arcs between components of a tournament point from earlier to later components of its condensation."""
    reach = [start]
    seen = {start}
    for u in reach:
        for v in range(n):
            if beats[u][v] and v not in seen:
                seen.add(v)
                reach.append(v)
    component = [v for v in reach if any_path(n, beats, v, start)]
    cycle = hamiltonian_cycle(sorted(component), beats)
    at = cycle.index(start)
    later = sorted(seen - set(component))
    return cycle[at:] + cycle[:at] + insertion_path(later, beats)


def any_path(n: int, beats: list[list[bool]], source: int, target: int) -> bool:
    seen, stack = {source}, [source]
    while stack:
        u = stack.pop()
        if u == target:
            return True
        for v in range(n):
            if beats[u][v] and v not in seen:
                seen.add(v)
                stack.append(v)
    return False


def beats_matrix(n: int, edges: list[list[int]]) -> list[list[bool]]:
    beats = [[False] * n for _ in range(n)]
    for s, t in edges:
        beats[s][t] = True
    return beats


class Tournament_LongestPath(Environment):
    name = "Tournament_LongestPath"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        order = rng.sample(range(n), n)
        edges = []
        for i in range(n):
            for j in range(i + 1, n):
                arc = [order[i], order[j]]
                edges.append(arc[::-1] if rng.random() < REVERSAL_PROBABILITY else arc)
        rng.shuffle(edges)
        start = rng.randrange(n)
        path = longest_path_from(n, beats_matrix(n, edges), start)
        return {"N": n, "S": start, "edges": edges, "optimum": len(path) - 1, "reference": " ".join(map(str, path))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a tournament with {n} vertices, labeled from 0 to {n - 1}: for every two vertices "
            "there is exactly one directed edge between them. The edges are listed below, each as (s, t): an "
            f"edge from s to t.\n{edge_lines(data['edges'])}\n\n"
            f"Find a longest path that starts at vertex {data['S']}: a sequence of distinct vertices in which each "
            "vertex has an edge to the next one. Its length is its number of edges.\n\n"
            f"Output Format: a single line with the vertices of the path in order (starting with {data['S']}), "
            "separated by spaces."
        )

    def score(self, data, answer):
        path = parse_ints(answer)
        if not path:
            raise FormatError("empty path")
        n = data["N"]
        if path[0] != data["S"] or any(not 0 <= v < n for v in path) or len(set(path)) != len(path):
            return -0.5
        arcs = {(s, t) for s, t in data["edges"]}
        if any(step not in arcs for step in zip(path, path[1:])):
            return -0.5
        if data["optimum"] == 0:
            return 1.0
        return ((len(path) - 1) / data["optimum"]) ** 5

    def perturb(self, problem, answer):
        """Drop the last vertex (or repeat S when the path is S alone)."""
        vertices = answer.split()
        return " ".join(vertices[:-1]) if len(vertices) > 1 else f"{answer} {answer}"

