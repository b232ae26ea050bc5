"""TreeElimination_Expectation: expected steps to colour a rooted tree by repeatedly colouring a random
uncoloured vertex together with its path to the root."""

from fractions import Fraction

from rlve_jax.gym.environments._common import ModCountingEnvironment, random_tree, subtree_sizes
from rlve_jax.gym.environments._numbers import fraction_mod

MOD = 10 ** 9 + 7


def expected_steps(n: int, edges: list[list[int]], root: int) -> Fraction:
    """Picking uncoloured vertices is a uniform random order with coloured ones skipped; vertex v is picked
    iff it precedes its whole subtree in that order, with probability 1/size(v)."""
    return sum((Fraction(1, s) for s in subtree_sizes(n, edges, root)), Fraction(0))


class TreeElimination_Expectation(ModCountingEnvironment):
    name = "TreeElimination_Expectation"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_tree(n, rng, "shuffle")
        root = rng.randrange(n)
        expectation = expected_steps(n, edges, root)
        return {"N": n, "edges": edges, "root": root, "mod": MOD,
                "gold": fraction_mod(expectation.numerator, expectation.denominator, MOD)}

    def prompt(self, data):
        n = data["N"]
        edges = "\n".join(f"{u} {v}" for u, v in data["edges"])
        return (
            f"You are given a tree with {n} vertices numbered 0 to {n - 1}, rooted at vertex {data['root']}. "
            f"Its edges are:\n{edges}\n"
            f"Initially all vertices are uncoloured. In each step, a vertex is chosen uniformly at random among the "
            f"uncoloured vertices, and it is coloured together with every vertex on its path to the root. The "
            f"process stops when every vertex is coloured. What is the expected number of steps?\n\n"
            f"Output Format: a single integer. The expectation is a fraction P/Q in lowest terms; output "
            f"P * Q^(-1) modulo {MOD}."
        )
