"""DegreeFixed_SpanningTree: a spanning tree of a graph in which every vertex has a prescribed degree."""

from rlve_jax.gym.environments._common import drop_last_tokens, fraction_reward, parse_flat_pairs, random_tree
from rlve_jax.gym.environments._graphs import graph_text, is_spanning_tree, pair_count, random_pairs
from rlve_jax.gym.env import Environment

DENSITIES = (0.1, 0.3, 0.5, 0.7, 0.9)


class DegreeFixed_SpanningTree(Environment):
    name = "DegreeFixed_SpanningTree"

    def levels(self, difficulty):
        n = 4 + difficulty
        return [{"N": n, "edge_density": rho} for rho in DENSITIES if int(rho * pair_count(n)) > n - 1]

    def sample(self, params, rng):
        """The degrees come from a planted spanning tree hidden among random extra edges."""
        n = params["N"]
        tree = random_tree(n, rng)
        edges = tree + random_pairs(n, int(params["edge_density"] * pair_count(n)) - (n - 1), rng, exclude=tree)
        rng.shuffle(edges)
        degrees = [0] * n
        for u, v in tree:
            degrees[u] += 1
            degrees[v] += 1
        return {"N": n, "edges": edges, "degrees": degrees,
                "reference": " ".join(f"{u} {v}" for u, v in tree)}

    def prompt(self, data):
        n = data["N"]
        degrees = "\n".join(f"d[{u}]={d}" for u, d in enumerate(data["degrees"]))
        return (
            graph_text(n, data["edges"])
            + f"Select exactly {n - 1} of these edges so that they form a spanning tree (they connect all "
            "vertices without a cycle) and every vertex u has exactly d[u] selected edges touching it, where\n"
            f"{degrees}\n\n"
            "Output Format: a single line `u1 v1 u2 v2 ...` listing the endpoints of the selected edges, "
            "all integers separated by spaces, in any order."
        )

    def score(self, data, answer):
        n = data["N"]
        chosen = parse_flat_pairs(answer)
        if not is_spanning_tree(n, chosen, {(min(u, v), max(u, v)) for u, v in data["edges"]}):
            return -0.5
        degrees = [0] * n
        for u, v in chosen:
            degrees[u] += 1
            degrees[v] += 1
        return fraction_reward(sum(a == b for a, b in zip(degrees, data["degrees"])), n, beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer, 2)
