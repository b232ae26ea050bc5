"""CantorExpansion: the rank of a sequence among the distinct permutations of its multiset, mod MOD."""

from collections import Counter
from math import factorial, prod

from rlve_jax.gym.environments._common import ModCountingEnvironment, mod_output_format


def arrangements(counts: Counter) -> int:
    return factorial(sum(counts.values())) // prod(factorial(c) for c in counts.values())


def count_smaller(sequence: list[int]) -> int:
    """Distinct rearrangements lexicographically smaller: at each position, try every smaller value."""
    left = Counter(sequence)
    total = 0
    for value in sequence:
        for smaller in sorted(v for v in left if v < value and left[v]):
            left[smaller] -= 1
            total += arrangements(left)
            left[smaller] += 1
        left[value] -= 1
    return total


class CantorExpansion(ModCountingEnvironment):
    name = "CantorExpansion"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        top = rng.randint(2, n)
        sequence = [rng.randint(1, top) for _ in range(n)]
        mod = rng.randint(2, 100_000)
        return {"N": n, "A": sequence, "MOD": mod, "gold": count_smaller(sequence) % mod}

    def prompt(self, data):
        return (
            f"You are given a sequence of {data['N']} integers: {' '.join(map(str, data['A']))}\n"
            "Consider all distinct sequences that can be obtained by rearranging its elements (equal "
            "elements are indistinguishable, so each distinct sequence counts once). How many of them are "
            "lexicographically strictly smaller than the given sequence?\n\n" + mod_output_format(data["MOD"])
        )
