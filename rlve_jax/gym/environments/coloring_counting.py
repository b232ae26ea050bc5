"""ColoringCounting: sum, over all proper colorings with per-vertex color caps, of the number of colors used."""

from rlve_jax.gym.environments._common import adjacency_masks, adjacency_sets, perturb_count, score_count
from rlve_jax.gym.environments._graphs import DENSITIES_L11, density_levels, graph_text, pair_count, random_pairs
from rlve_jax.gym.env import Environment


def colors_used_total(n: int, edges: list[list[int]], caps: list[int]) -> int:
    """Sum of #distinct colors over proper colorings with color(u) in [0, caps[u]].

    A coloring is a partition into independent classes plus an injective choice of a color
    for each class below the class's smallest cap. Taking classes in order of their smallest
    cap (the lowest-cap unplaced vertex opens the next class), the i-th class (0-based) has
    caps[v] + 1 - i color choices, so a DP over (placed vertices, classes so far) counts all.
    """
    order = sorted(range(n), key=lambda u: caps[u])
    position = {v: i for i, v in enumerate(order)}
    neighbours = adjacency_masks(n, [[position[u], position[v]] for u, v in edges])
    # independent sets grouped by their lowest (sorted) vertex
    classes_from: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        stack = [(1 << v, ~neighbours[v] & ~((1 << (v + 1)) - 1) & ((1 << n) - 1))]
        while stack:
            chosen, free = stack.pop()
            classes_from[v].append(chosen)
            while free:
                w = (free & -free).bit_length() - 1
                free &= free - 1
                stack.append((chosen | 1 << w, free & ~neighbours[w]))
    ways: dict[int, dict[int, int]] = {0: {0: 1}}
    full = (1 << n) - 1
    for mask in range(full):
        by_count = ways.pop(mask, None)
        if not by_count:
            continue
        v = (~mask & (mask + 1)).bit_length() - 1  # lowest unplaced vertex
        for cls in classes_from[v]:
            if cls & mask:
                continue
            target = ways.setdefault(mask | cls, {})
            for count, number in by_count.items():
                choices = caps[order[v]] + 1 - count
                if choices > 0:
                    target[count + 1] = target.get(count + 1, 0) + number * choices
    return sum(count * number for count, number in ways.get(full, {}).items())


class ColoringCounting(Environment):
    name = "ColoringCounting"

    def levels(self, difficulty):
        return density_levels(4 + difficulty, DENSITIES_L11)

    def sample(self, params, rng):
        n = params["N"]
        edges = random_pairs(n, int(params["edge_density"] * pair_count(n)), rng)
        # Colors are 0..R[u], so R[u] >= deg(u) leaves every vertex a free color: a coloring always exists.
        caps = [rng.randint(len(adj), 2 * len(adj)) for adj in adjacency_sets(n, edges)]
        total = colors_used_total(n, edges, caps)
        return {"N": n, "edges": edges, "R": caps, "reference": str(total)}

    def prompt(self, data):
        n = data["N"]
        caps = " ".join(f"R[{u}]={r}" for u, r in enumerate(data["R"]))
        return (
            graph_text(n, data["edges"])
            + "Each vertex u must be given a color C[u], an integer with 0 <= C[u] <= R[u], where\n"
            f"{caps}\n"
            "A coloring is proper if the two endpoints of every edge get different colors. For every "
            "proper coloring, count the number of distinct colors it uses. What is the sum of these "
            "counts over all proper colorings?\n\n"
            "Output Format: a single integer, the sum."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)  # the sum is positive

    perturb = perturb_count
