"""MaxTreeXorPath: two tree vertices whose connecting path has the largest XOR of edge weights."""

from rlve_jax.gym.environments._common import edge_lines, grow_1p1, maximization_reward, parse_ints, random_tree
from rlve_jax.gym.environments._graphs import xor_potentials
from rlve_jax.gym.env import Environment, FormatError


class MaxTreeXorPath(Environment):
    name = "MaxTreeXorPath"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        bound = 2 ** max(4, n.bit_length() + 1)
        while True:
            edges = [[u, v, rng.randrange(bound)] for u, v in random_tree(n, rng)]
            value = xor_potentials(n, edges)
            best = max((value[u] ^ value[v], u, v) for u in range(n) for v in range(u + 1, n))
            if best[0] > 0:
                break
        rng.shuffle(edges)
        return {"N": n, "edges": edges, "optimum": best[0], "reference": f"{best[1]} {best[2]}"}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a tree with {n} vertices, labeled from 0 to {n - 1}. Its edges are listed as "
            "(u, v, w), an edge between u and v with weight w:\n"
            f"{edge_lines(data['edges'])}\n\n"
            "Choose two vertices u and v such that the XOR of the weights of the edges on the path between "
            "u and v is as large as possible.\n\n"
            "Output Format: a single line with the two vertices `u v`, separated by a space."
        )

    def score(self, data, answer):
        ends = parse_ints(answer)
        if len(ends) != 2 or any(not 0 <= v < data["N"] for v in ends):
            raise FormatError("two vertex ids expected")
        value = xor_potentials(data["N"], data["edges"])
        return maximization_reward(value[ends[0]] ^ value[ends[1]], data["optimum"], beta=5)

    def perturb(self, problem, answer):
        u = answer.split()[0]
        return f"{u} {u}"  # an empty path: XOR 0
