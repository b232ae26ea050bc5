"""Vertex_KCenter: K vertices minimizing the largest distance from any vertex to its nearest chosen one."""

from rlve_jax.gym.environments._common import drop_last_tokens, parse_distinct_indices
from rlve_jax.gym.environments._graphs import (DENSITIES_L15, all_pairs_distances, density_levels, pair_count,
                                  random_connected_graph, structure_text)
from rlve_jax.gym.env import Environment


def cover_with(covers: list[int], uncovered: int, budget: int, failed: set[tuple[int, int]]) -> list[int] | None:
    """At most `budget` centres whose cover masks include every vertex of `uncovered`: branch on the
    centres that can cover the hardest uncovered vertex (the one with the fewest candidates)."""
    if not uncovered:
        return []
    if budget == 0 or (uncovered, budget) in failed:
        return None
    hardest = min((v for v in range(len(covers)) if uncovered >> v & 1),
                  key=lambda v: sum(c >> v & 1 for c in covers))
    candidates = sorted((c for c in range(len(covers)) if covers[c] >> hardest & 1),
                        key=lambda c: -bin(covers[c] & uncovered).count("1"))
    for centre in candidates:
        rest = cover_with(covers, uncovered & ~covers[centre], budget - 1, failed)
        if rest is not None:
            return [centre] + rest
    failed.add((uncovered, budget))
    return None


def k_center(n: int, dist: list[list[float]], k: int) -> tuple[int, list[int]]:
    """The smallest radius (a distance value) that K centres can cover, by binary search; exact."""
    radii = sorted({int(d) for row in dist for d in row})
    low, high, best = 0, len(radii) - 1, None
    while low <= high:
        middle = (low + high) // 2
        covers = [sum(1 << v for v in range(n) if dist[c][v] <= radii[middle]) for c in range(n)]
        centres = cover_with(covers, (1 << n) - 1, k, set())
        if centres is None:
            low = middle + 1
        else:
            best, high = (radii[middle], centres), middle - 1
    assert best is not None
    radius, centres = best
    padding = [v for v in range(n) if v not in centres][:k - len(centres)]
    return radius, sorted(centres + padding)


def covering_radius(dist: list[list[float]], centres: list[int]) -> float:
    return max(min(dist[c][v] for c in centres) for v in range(len(dist)))


class Vertex_KCenter(Environment):
    name = "Vertex_KCenter"

    def levels(self, difficulty):
        n = 4 + difficulty
        return density_levels(n, DENSITIES_L15, min_edges=n - 1)

    def sample(self, params, rng):
        n = params["N"]
        pairs = random_connected_graph(n, int(params["edge_density"] * pair_count(n)), rng)  # recursive backbone
        edges = [[u, v, rng.randint(1, n)] for u, v in pairs]
        k = rng.randint(1, n - 1)
        radius, centres = k_center(n, all_pairs_distances(n, edges), k)
        return {"N": n, "K": k, "edges": edges, "optimum": radius, "reference": " ".join(map(str, centres))}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            structure_text("connected undirected graph", n, data["edges"], weight="length") +
            f"Choose exactly {k} distinct vertices as centres. For every vertex, consider its shortest-path "
            "distance to the nearest centre; minimize the largest of these distances.\n\n"
            f"Output Format: a single line with the {k} chosen vertices, separated by spaces."
        )

    def score(self, data, answer):
        centres = parse_distinct_indices(answer, data["N"])
        if centres is None or len(centres) != data["K"]:
            return -0.5
        return (data["optimum"] / covering_radius(all_pairs_distances(data["N"], data["edges"]), centres)) ** 5

    def perturb(self, problem, answer):
        """One centre too few: moving a centre may keep the radius."""
        return drop_last_tokens(answer)
