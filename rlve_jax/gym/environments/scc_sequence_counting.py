"""SCC_Sequence_Counting: for every E, how many sequences of SCC counts can E edge insertions produce."""

from rlve_jax.gym.environments._common import IntListEnvironment


def scc_sequence_counts(n: int, mod: int) -> list[int]:
    """Counts for E = 1..n(n-1), mod `mod`.

    A sequence of SCC counts is feasible iff every step is possible, and step i (1-based) from j SCCs
    after c earlier merges can:
    - keep j iff i <= cap(j), the most edges j SCCs allow (one big SCC plus singletons in a
      transitive order: (n^2 + (n-j+1)^2 + j-1)/2 - n);
    - drop to j-k iff a path through k+1 SCCs exists: k inter-SCC edges on top of the at least
      (n-j)+c edges inside SCCs (every merge of k'+1 SCCs costs k'+1 edges), so i-1 >= (n-j)+c+k.
    Both bounds are met at once by one big SCC that absorbs a prefix of a chain of singletons.
    """
    def capacity(j: int) -> int:
        return (n * n + (n - j + 1) ** 2 + j - 1) // 2 - n

    states = {(n, 0): 1}  # (SCC count, merges so far) -> number of distinct prefixes
    counts = []
    for step in range(1, n * (n - 1) + 1):
        nxt: dict[tuple[int, int], int] = {}
        for (j, merges), ways in states.items():
            if step <= capacity(j):
                nxt[j, merges] = (nxt.get((j, merges), 0) + ways) % mod
            for k in range(1, min(j - 1, step - 1 - (n - j) - merges) + 1):
                nxt[j - k, merges + 1] = (nxt.get((j - k, merges + 1), 0) + ways) % mod
        states = nxt
        counts.append(sum(states.values()) % mod)
    return counts


class SCC_Sequence_Counting(IntListEnvironment):
    name = "SCC_Sequence_Counting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        mod = rng.randint(2, 10 ** 6)
        return {"N": n, "mod": mod, "gold": scc_sequence_counts(n, mod)}

    def prompt(self, data):
        n, mod = data["N"], data["mod"]
        total = n * (n - 1)
        return (
            f"Start from a directed graph with {n} vertices and no edges. Add E distinct directed edges one at a time "
            f"(no self-loops, each ordered pair (u, v) at most once), and after each addition write down the number "
            f"of strongly connected components of the current graph. This gives a sequence of E numbers. "
            f"For every E from 1 to {total}, count how many different sequences can arise.\n\n"
            f"Output Format: a single line with {total} integers separated by spaces: the counts for E = 1, 2, ..., "
            f"{total}, each modulo {mod}."
        )
