"""TwoSet_AllCoprime_Counting: ordered pairs of disjoint subsets (S, T) with every cross pair coprime."""

from rlve_jax.gym.environments._numbers import factorize
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def count_pairs(values: list[int]) -> int:
    """Cross pairs are all coprime iff the prime sets of S and T are disjoint: a DP over the
    numbers with the two prime sets (as bitmasks) as state."""
    primes = sorted({p for v in values for p in factorize(v)})
    masks = [sum(1 << primes.index(p) for p in factorize(v)) for v in values]
    states = {(0, 0): 1}
    for mask in masks:
        nxt: dict[tuple[int, int], int] = {}
        for (s, t), ways in states.items():
            for key in ((s, t), (s | mask, t) if not mask & t else None, (s, t | mask) if not mask & s else None):
                if key is not None:
                    nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    return sum(states.values())


class TwoSet_AllCoprime_Counting(Environment):
    name = "TwoSet_AllCoprime_Counting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(8, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = sorted(rng.sample(range(2, n + 1), rng.randint(2, n - 1)))
        return {"values": values, "reference": str(count_pairs(values))}

    def prompt(self, data):
        return (
            f"You are given the set of integers {{{', '.join(map(str, data['values']))}}}. Count the ordered pairs "
            "(S, T) of disjoint subsets of it (either may be empty) such that every x in S and every y in T are "
            "coprime, i.e. gcd(x, y) = 1.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)
