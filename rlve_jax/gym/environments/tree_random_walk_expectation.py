"""TreeRandomWalkExpectation: mean over all ordered vertex pairs of the expected random-walk hitting time."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, random_tree, subtree_sizes
from rlve_jax.gym.environments._numbers import fraction_mod

MOD = 998244353


def total_hitting_time(n: int, edges: list[list[int]]) -> int:
    """Sum over ordered pairs (u, v) of E[steps from u to reach v].

    Crossing an edge from the side with a vertices to the side with b vertices takes 2a - 1 steps in
    expectation and lies on a*b of the ordered paths; both directions together give a*b*(2n - 2).
    """
    size = subtree_sizes(n, edges, 0)
    return sum(size[v] * (n - size[v]) * (2 * n - 2) for v in range(1, n))


class TreeRandomWalkExpectation(ModCountingEnvironment):
    name = "TreeRandomWalkExpectation"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng, "shuffle")
        return {"N": n, "edges": edges, "mod": MOD, "gold": fraction_mod(total_hitting_time(n, edges), n * n, MOD)}

    def prompt(self, data):
        n = data["N"]
        edges = "\n".join(f"{u} {v}" for u, v in data["edges"])
        return (
            f"You are given a tree with {n} vertices numbered 0 to {n - 1} and these edges:\n{edges}\n"
            f"A random walk starts at a vertex u and, at every step, moves to a neighbour of its current vertex chosen "
            f"uniformly at random. Let T(u, v) be the expected number of steps until the walk first reaches vertex v "
            f"(T(u, u) = 0). Compute the average of T(u, v) over all {n} * {n} ordered pairs (u, v).\n\n"
            f"Output Format: a single integer. The average is a fraction P/Q in lowest terms; output "
            f"P * Q^(-1) modulo {MOD}."
        )
