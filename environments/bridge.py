"""Bridge: list every bridge (an edge whose removal disconnects its component) of an undirected graph."""

from environments._common import parse_flat_pairs
from environments._graphs import DENSITIES_002_09, find_bridges, graph_text, pair_count, random_pairs
from rlve_jax.env import Environment, fraction_reward, grow_1p1

COMPONENT_FRACTIONS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


class Bridge(Environment):
    name = "Bridge"
    size_keys = ("N",)

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        component_nums = sorted({int(c * n) for c in COMPONENT_FRACTIONS if int(c * n) >= 2})
        return [{"N": n, "edge_density": rho, "component_num": k}
                for rho in DENSITIES_002_09 for k in component_nums]

    def sample(self, params, rng):
        """Dense-ish blocks of the given density, joined by a random tree of single edges (always bridges)."""
        n, k = params["N"], params["component_num"]
        vertices = list(range(n))
        rng.shuffle(vertices)
        cuts = sorted(rng.sample(range(1, n), k - 1))
        blocks = [vertices[a:b] for a, b in zip([0] + cuts, cuts + [n])]
        edges = []
        for block in blocks:
            inner = random_pairs(len(block), int(params["edge_density"] * pair_count(len(block))), rng)
            edges += [[block[a], block[b]] for a, b in inner]
        for i in range(1, k):
            edges.append([rng.choice(blocks[rng.randrange(i)]), rng.choice(blocks[i])])
        rng.shuffle(edges)
        edges = [e if rng.random() < 0.5 else e[::-1] for e in edges]
        bridges = find_bridges(n, edges)
        return {"N": n, "edges": edges, "bridges": bridges,
                "reference": " ".join(f"{u} {v}" for u, v in bridges)}

    def prompt(self, data):
        return (
            graph_text(data['N'], data["edges"])
            + "Your task is to find all edges (u, v) such that removing the edge (u, v) from the graph "
            "would disconnect vertices u and v (these edges are called bridges).\n\n"
            "Output Format: a single line `u1 v1 u2 v2 ...` listing every bridge as its two endpoints, "
            "all integers separated by spaces. The order of the bridges and of the two endpoints of a "
            "bridge does not matter."
        )

    def score(self, data, answer):
        bridges = {tuple(b) for b in data["bridges"]}
        listed = [(min(u, v), max(u, v)) for u, v in parse_flat_pairs(answer)]
        if len(set(listed)) != len(listed) or any(e not in bridges for e in listed):
            return -0.5
        return fraction_reward(len(listed), len(bridges), beta=5)
