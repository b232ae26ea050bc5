"""TreeMaximumVisitedVertex: a walk of exactly M steps from vertex 0 of a tree visiting the most vertices."""

from rlve_jax.gym.environments._common import adjacency, bfs_order, grow_1p1, parse_ints, prufer_tree
from rlve_jax.gym.environments._graphs import structure_text
from rlve_jax.gym.env import Environment, FormatError


def best_walk(n: int, edges: list[list[int]], steps: int) -> list[int]:
    """A walk covering a connected set S from 0 and ending at depth D costs 2(|S| - 1) - D steps, so at most
    D + 1 + (M - D) // 2 vertices (M + 1 if M <= D): run down a deepest path, detouring through extra
    vertices next to it, then spend leftover steps bouncing on the last edge."""
    adjacent = adjacency(n, edges)
    parent, order = bfs_order(adjacent, 0)
    depth = [0] * n
    for v in order[1:]:
        depth[v] = depth[parent[v]] + 1
    deepest = max(order, key=lambda v: depth[v])
    spine = [deepest]
    while spine[-1] != 0:
        spine.append(parent[spine[-1]])
    spine.reverse()
    if steps <= len(spine) - 1:
        return spine[:steps + 1]
    extra = min(n - len(spine), (steps - len(spine) + 1) // 2)
    chosen = set(spine)
    for v in order:  # BFS order: each added vertex's parent is already chosen
        if extra == 0:
            break
        if v not in chosen and parent[v] in chosen:
            chosen.add(v)
            extra -= 1
    on_spine = set(spine)
    walk = []

    def visit(v: int) -> None:
        walk.append(v)
        children = [c for c in adjacent[v] if c != parent[v] and c in chosen]
        for c in sorted(children, key=lambda c: c in on_spine):  # the spine child last, never returned from
            visit(c)
            if c not in on_spine:
                walk.append(v)

    visit(0)
    while len(walk) < steps + 1:
        walk.append(walk[-2])
    return walk


class TreeMaximumVisitedVertex(Environment):
    name = "TreeMaximumVisitedVertex"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        edges = prufer_tree(n, rng)
        steps = rng.randint(2, 2 * (n - 1) - 1)
        walk = best_walk(n, edges, steps)
        return {"N": n, "M": steps, "edges": edges, "optimum": len(set(walk)), "reference": " ".join(map(str, walk))}

    def prompt(self, data):
        n, steps = data["N"], data["M"]
        return (
            structure_text("tree", n, data["edges"]) +
            f"Starting at vertex 0, make a walk of exactly {steps} steps; each step moves to a vertex adjacent to "
            "the current one (vertices may be revisited). Maximize the number of distinct vertices visited "
            "(vertex 0 counts).\n\n"
            f"Output Format: a single line with the {steps + 1} vertices of the walk in order (starting with 0), "
            "separated by spaces."
        )

    def score(self, data, answer):
        walk = parse_ints(answer)
        if not walk:
            raise FormatError("empty walk")  # the original: an empty answer is a format error (-1)
        present = {(min(u, v), max(u, v)) for u, v in data["edges"]}
        if len(walk) != data["M"] + 1 or walk[0] != 0:
            return -0.5
        if any((min(u, v), max(u, v)) not in present for u, v in zip(walk, walk[1:])):
            return -0.5
        return (len(set(walk)) / data["optimum"]) ** 3

    def perturb(self, problem, answer):
        """Start somewhere else than 0: the last step of an optimal walk can often be changed freely."""
        return " ".join(["1"] + answer.split()[1:])
