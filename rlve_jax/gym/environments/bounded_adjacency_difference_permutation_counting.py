"""BoundedAdjacencyDifference_Permutation_Counting: permutations whose neighbours differ by at most K."""

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format

# A level has only three instances (K in 2..4), so the question comes in a few phrasings.
PHRASINGS = (
    "Count the permutations p[1], p[2], ..., p[{n}] of the integers 1 to {n} such that every two adjacent "
    "elements differ by at most {k}, i.e. |p[i] - p[i+1]| <= {k} for all 1 <= i < {n}.",
    "How many ways are there to arrange the numbers 1, 2, ..., {n} in a row so that any two neighbouring "
    "numbers differ by no more than {k}?",
    "A permutation p of 1..{n} is called {k}-smooth if |p[i] - p[i+1]| <= {k} for every i from 1 to {n_1}. "
    "How many {k}-smooth permutations of 1..{n} are there?",
    "The numbers 1 to {n} are written in a line in some order. In how many orders is the absolute difference "
    "of every pair of adjacent numbers at most {k}?",
)


def count_bounded_permutations(n: int, k: int) -> int:
    """Bitmask DP over (used values, last value); each step has at most 2K candidates."""
    ways = [[0] * n for _ in range(1 << n)]
    for v in range(n):
        ways[1 << v][v] = 1
    for used in range(1, 1 << n):
        row = ways[used]
        for last in range(n):
            count = row[last]
            if not count:
                continue
            for nxt in range(max(0, last - k), min(n, last + k + 1)):
                if not used >> nxt & 1:
                    ways[used | 1 << nxt][nxt] += count
    return sum(ways[(1 << n) - 1])


class BoundedAdjacencyDifference_Permutation_Counting(CountingEnvironment):
    name = "BoundedAdjacencyDifference_Permutation_Counting"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(2, min(4, n - 2))
        return {"N": n, "K": k, "phrasing": rng.randrange(len(PHRASINGS)), "gold": count_bounded_permutations(n, k)}

    def prompt(self, data):
        question = PHRASINGS[data["phrasing"]].format(n=data["N"], n_1=data["N"] - 1, k=data["K"])
        return question + "\n\n" + count_output_format()
