"""SquSquarks: recover N distinct positive integers from the multiset of their pairwise sums."""

from collections import Counter
from itertools import combinations

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints


def pair_sums(values: list[int]) -> Counter:
    return Counter(a + b for a, b in combinations(values, 2))


class SquSquarks(Environment):
    name = "SquSquarks"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        values = sorted(rng.sample(range(1, 2 * n + 1), n))
        return {"sums": sorted(pair_sums(values).elements()), "N": n, "reference": " ".join(map(str, values))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"There are {n} distinct positive integers. The sums of all {len(data['sums'])} pairs of them are "
            f"(in increasing order): {' '.join(map(str, data['sums']))}\n"
            "Find the original integers.\n\n"
            f"Output Format: a single line with the {n} integers separated by spaces (in any order)."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != data["N"] or len(set(values)) != len(values) or min(values) <= 0:
            return -0.5
        ours, gold = pair_sums(values), Counter(data["sums"])
        return (sum((ours & gold).values()) / sum((ours | gold).values())) ** 5
