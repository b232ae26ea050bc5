"""TreeTopologicalSequenceCounting: permutations that satisfy < / > relations along the edges of a tree."""

from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, adjacency, bfs_order, random_tree


def constrained_permutations(n: int, relations: list[list[int]]) -> int:
    """Exact count for relations [u, v] meaning P[u] < P[v].

    ways[u][i]: orderings of u's subtree with u at rank i (0-based). Merging a child subtree places t of
    its vertices below u; the child's own rank must then be >= t (child above) or < t (child below).
    """
    neighbours = adjacency(n, relations)
    below = {(u, v) for u, v in relations}
    parent, order = bfs_order(neighbours, 0)
    ways: list[list[int]] = [[] for _ in range(n)]
    for u in reversed(order):
        table = [1]
        for v in neighbours[u]:
            if v == parent[u]:
                continue
            child = ways[v]
            prefix = [0]
            for count in child:
                prefix.append(prefix[-1] + count)
            size_u, size_v = len(table), len(child)
            merged = [0] * (size_u + size_v)
            for i, count in enumerate(table):
                for t in range(size_v + 1):
                    child_ways = prefix[size_v] - prefix[t] if (u, v) in below else prefix[t]
                    merged[i + t] += count * child_ways * comb(i + t, t) * comb(size_u - 1 - i + size_v - t, size_v - t)
            table = merged
        ways[u] = table
    return sum(ways[0])


class TreeTopologicalSequenceCounting(ModCountingEnvironment):
    name = "TreeTopologicalSequenceCounting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        planted = list(range(1, n + 1))
        rng.shuffle(planted)
        relations = [[u, v] if planted[u] < planted[v] else [v, u] for u, v in random_tree(n, rng, "shuffle")]
        shown = [f"P[{u}] < P[{v}]" if rng.random() < 0.5 else f"P[{v}] > P[{u}]" for u, v in relations]
        mod = rng.randint(2, 10 ** 6)
        return {"N": n, "conditions": shown, "mod": mod, "gold": constrained_permutations(n, relations) % mod}

    def prompt(self, data):
        n = data["N"]
        conditions = "\n".join(data["conditions"])
        return (
            f"Count the permutations P[0], P[1], ..., P[{n - 1}] of the integers 1 to {n} that satisfy all of the "
            f"following {n - 1} conditions:\n{conditions}\n\n"
            f"Output Format: a single integer, the number of such permutations modulo {data['mod']}."
        )
