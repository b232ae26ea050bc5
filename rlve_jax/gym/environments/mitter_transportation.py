"""MitterTransportation: fewest vertex values to change so every parent is the sum of its equal children."""

from collections import Counter
from math import lcm

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def branching_products(parents: list[int]) -> list[int]:
    """For each vertex, the product of the child counts of its proper ancestors (root value / vertex value)."""
    children = Counter(parents[1:])
    products = [1] * len(parents)
    for v in range(1, len(parents)):
        products[v] = products[parents[v]] * children[parents[v]]
    return products


def min_changes(parents: list[int], values: list[int]) -> int:
    """A consistent tree is fixed by its root value; keep the vertices that agree on the most common root value."""
    implied_roots = Counter(v * p for v, p in zip(values, branching_products(parents)))
    return len(values) - max(implied_roots.values())


class MitterTransportation(ExactIntegerEnvironment):
    name = "MitterTransportation"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        parents = [-1] + [rng.randint(0, v - 1) for v in range(1, n)]
        products = branching_products(parents)
        root = lcm(*products) * rng.randint(1, n)
        consistent = [root // p for p in products]
        kept = set(rng.sample(range(n), rng.randint(1, n)))
        values = [consistent[v] if v in kept else rng.randint(1, max(consistent)) for v in range(n)]
        return {"parents": parents, "values": values, "reference": str(min_changes(parents, values))}

    def prompt(self, data):
        n = len(data["values"])
        edges = "\n".join(f"{data['parents'][v] + 1} {v + 1}" for v in range(1, n))
        values = " ".join(map(str, data["values"]))
        return (
            f"You are given a tree with {n} vertices numbered 1 to {n}, rooted at vertex 1. Each line below is an "
            f"edge `parent child`:\n{edges}\n"
            f"The values of vertices 1 to {n} are: {values}\n\n"
            "The tree is balanced when, for every vertex with children, all of its children have the same value "
            "and its own value equals the sum of its children's values. You may change the value of any vertex to "
            "any positive real number. What is the minimum number of vertices whose values must change to make "
            "the tree balanced?\n\n"
            "Output Format: a single integer."
        )
