"""Bridge: list every bridge (an edge whose removal disconnects its component) of an undirected graph."""

from rlve_jax.gym.environments._common import fraction_reward, grow_1p1, parse_flat_pairs
from rlve_jax.gym.environments._graphs import DENSITIES_L15, find_bridges, graph_text, pair_count
from rlve_jax.gym.env import Environment

COMPONENT_FRACTIONS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8)


class Bridge(Environment):
    name = "Bridge"
    size_keys = ("N",)

    def levels(self, difficulty):
        n = grow_1p1(4, difficulty)
        component_nums = sorted({int(c * n) for c in COMPONENT_FRACTIONS if int(c * n) >= 2})
        return [{"N": n, "edge_density": rho, "component_num": k}
                for rho in DENSITIES_L15 for k in component_nums]

    def sample(self, params, rng):
        """Vertices get random labels in [0, k) (redrawn until two labels occur); the label groups, in label
        order, are chained by one link each from an earlier group, and the whole graph's edge target
        floor(rho * C(N, 2)) is filled from the pooled within-group pairs."""
        n, k = params["N"], params["component_num"]
        while True:
            labels = [rng.randrange(k) for _ in range(n)]
            if len(set(labels)) >= 2:
                break
        groups = [members for members in ([v for v in range(n) if labels[v] == c] for c in range(k)) if members]
        edges = [sorted((rng.choice([v for group in groups[:i] for v in group]), rng.choice(groups[i])))
                 for i in range(1, len(groups))]
        inside = [(u, v) for u in range(n) for v in range(u + 1, n) if labels[u] == labels[v]]
        fill = max(0, int(params["edge_density"] * pair_count(n)) - len(edges))
        edges += [list(pair) for pair in rng.sample(inside, min(fill, len(inside)))]
        rng.shuffle(edges)
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
