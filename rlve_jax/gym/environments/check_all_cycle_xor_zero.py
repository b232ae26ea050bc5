"""CheckAllCycleXorZero: decide whether every cycle of an edge-weighted graph has XOR 0."""

from rlve_jax.gym.environments._graphs import (
    RATIOS_1_3, WEIGHTED_EDGES, find_bridges, graph_text, random_pairs, ratio_levels, xor_potentials,
)
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1


def all_cycles_xor_zero(n: int, edges: list[list[int]]) -> bool:
    """True iff vertex potentials p exist with w(u, v) = p[u] ^ p[v] on every edge."""
    potential = xor_potentials(n, edges)
    return all(potential[u] ^ potential[v] == w for u, v, w in edges)


class CheckAllCycleXorZero(Environment):
    name = "CheckAllCycleXorZero"

    def levels(self, difficulty):
        return ratio_levels(grow_1p1(4, difficulty), RATIOS_1_3)

    def sample(self, params, rng):
        """Potential-difference weights make every cycle XOR to 0; for NO, one edge on a cycle is flipped."""
        n = params["N"]
        bits = n.bit_length() + 1
        potential = [rng.randint(0, 2 ** bits - 1) for _ in range(n)]
        pairs = random_pairs(n, int(params["edge_ratio"] * n), rng)  # >= n edges, so a cycle exists
        edges = [[u, v, potential[u] ^ potential[v]] for u, v in pairs]
        want_yes = rng.random() < 0.5
        if not want_yes:
            bridges = find_bridges(n, pairs)
            on_cycle = [e for e in edges if sorted(e[:2]) not in bridges]
            rng.choice(on_cycle)[2] ^= rng.randint(1, 2 ** bits - 1)
        answer = "YES" if all_cycles_xor_zero(n, edges) else "NO"
        return {"N": n, "edges": edges, "reference": answer}

    def prompt(self, data):
        return (
            graph_text(data["N"], data["edges"], edge_form=WEIGHTED_EDGES)
            + "Determine whether every cycle in this graph has an XOR of its edge weights equal to 0.\n\n"
            "Output Format: a single word, `YES` if every cycle has XOR 0 and `NO` otherwise."
        )

    def score(self, data, answer):
        if answer not in ("YES", "NO"):
            return -0.5
        return float(answer == data["reference"])
