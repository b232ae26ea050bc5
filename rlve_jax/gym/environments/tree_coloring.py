"""TreeColoring (HAOI 2015): color exactly K vertices of a weighted tree to maximize the sum of distances
between same-colored pairs."""

from rlve_jax.gym.environments._common import bfs_order, parse_distinct_indices, prufer_tree, weighted_adjacency
from rlve_jax.gym.environments._graphs import all_pairs_distances, structure_text
from rlve_jax.gym.env import Environment

NEG = float("-inf")


def best_coloring(n: int, edges: list[list[int]], k: int) -> tuple[int, list[int]]:
    """Tree knapsack: an edge with s vertices and j colored ones below it lies on w * (j (K - j) +
    (s - j)(N - K - s + j)) same-colored paths. best[v][j] = most from edges inside v's subtree."""
    adjacent = weighted_adjacency(n, edges)
    parent, order = bfs_order([[u for u, _ in row] for row in adjacent], 0)
    size = [1] * n
    best: list[list[float]] = [[0.0, 0.0] for _ in range(n)]  # v itself uncolored / colored
    splits: list[list[tuple[int, list[int]]]] = [[] for _ in range(n)]  # (child, colored-in-child per total)
    for v in reversed(order):
        for c, w in adjacent[v]:
            if c == parent[v]:
                continue
            merged = [NEG] * (size[v] + size[c] + 1)
            choice = [0] * (size[v] + size[c] + 1)
            for j in range(min(size[c], k) + 1):
                if best[c][j] == NEG or size[c] - j > n - k:
                    continue
                gain = best[c][j] + w * (j * (k - j) + (size[c] - j) * (n - k - size[c] + j))
                for i in range(min(size[v], k - j) + 1):
                    if best[v][i] != NEG and best[v][i] + gain > merged[i + j]:
                        merged[i + j], choice[i + j] = best[v][i] + gain, j
            best[v], size[v] = merged, size[v] + size[c]
            splits[v].append((c, choice))
    colored, pending = [], [(0, k)]
    while pending:
        v, j = pending.pop()
        for c, choice in reversed(splits[v]):
            pending.append((c, choice[j]))
            j -= choice[j]
        if j:
            colored.append(v)
    return int(best[0][k]), sorted(colored)


def coloring_value(n: int, edges: list[list[int]], colored: list[int]) -> int:
    dist = all_pairs_distances(n, edges)
    is_colored = [False] * n
    for v in colored:
        is_colored[v] = True
    return int(sum(dist[u][v] for u in range(n) for v in range(u + 1, n) if is_colored[u] == is_colored[v]))


class TreeColoring(Environment):
    name = "TreeColoring"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = [[u, v, rng.randint(1, n)] for u, v in prufer_tree(n, rng)]
        k = rng.randint(1, n - 1)
        optimum, colored = best_coloring(n, edges, k)
        return {"N": n, "K": k, "edges": edges, "optimum": optimum, "reference": " ".join(map(str, colored))}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            structure_text("tree", n, data["edges"], weight="length") +
            f"Color exactly {k} of the vertices black; the other {n - k} vertices are white. The score is the sum "
            "of the distances (path lengths) over all unordered pairs of black vertices plus the sum over all "
            "unordered pairs of white vertices. Choose the black vertices to maximize the score.\n\n"
            f"Output Format: a single line with the {k} black vertices, separated by spaces."
        )

    def score(self, data, answer):
        colored = parse_distinct_indices(answer, data["N"])
        if colored is None or len(colored) != data["K"]:
            return -0.5
        return (coloring_value(data["N"], data["edges"], colored) / data["optimum"]) ** 2

    def perturb(self, problem, answer):
        """One vertex too many: swapping a vertex could land on an equally good coloring."""
        return f"{answer} {answer.split()[0]}"
