"""AlmostCompleteGraphCycleCounting: simple cycles of K_N with the edge (1, N) removed, modulo an odd MOD."""

from math import comb, factorial

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p5, mod_output_format


def almost_complete_cycles(n: int) -> int:
    """Cycles of K_n on k vertices, (n choose k)(k-1)!/2, minus those through the missing edge.

    A k-cycle through the edge (1, n) is that edge plus a path from n back to 1 through
    k-2 of the other n-2 vertices in some order: comb(n-2, k-2) * (k-2)! of them.
    """
    return sum(comb(n, k) * factorial(k - 1) // 2 - comb(n - 2, k - 2) * factorial(k - 2)
               for k in range(3, n + 1))


class AlmostCompleteGraphCycleCounting(ModCountingEnvironment):
    name = "AlmostCompleteGraphCycleCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(5, difficulty)}]  # 5, 7, 10, 15, 22, 33, 49, ...

    def sample(self, params, rng):
        n = rng.randint(4, params["MAX_N"])
        mod = 2 * rng.randint(1, 499_999) + 1  # a random odd modulus in [3, 999999]
        return {"N": n, "MOD": mod, "gold": almost_complete_cycles(n) % mod}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Consider the undirected graph with {n} vertices labelled 1 to {n} in which every pair of "
            f"distinct vertices is joined by an edge, except the pair (1, {n}), which is not joined.\n"
            "Count the simple cycles of this graph. A simple cycle visits at least 3 distinct vertices "
            "and returns to its start without repeating a vertex; two cycles are the same if they use "
            "the same set of edges (so rotations and reversals are not counted separately).\n\n"
            + mod_output_format(data["MOD"])
        )
