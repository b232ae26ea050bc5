"""InversionPair: fewest adjacent swaps (in either of two arrays) that minimise the sum of squared gaps."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


def min_aligning_swaps(a: list[int], b: list[int]) -> int:
    """The sum is minimal when equal ranks share positions; the swaps needed are the inversions of the rank map."""
    rank_a = {v: r for r, v in enumerate(sorted(a))}
    position_of_rank_in_b = {rank: b.index(v) for rank, v in enumerate(sorted(b))}
    sequence = [position_of_rank_in_b[rank_a[v]] for v in a]
    return sum(x > y for i, x in enumerate(sequence) for y in sequence[i + 1:])


class InversionPair(Environment):
    name = "InversionPair"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        a, b = rng.sample(range(2 * n), n), rng.sample(range(2 * n), n)
        return {"A": a, "B": b, "reference": str(min_aligning_swaps(a, b))}

    def prompt(self, data):
        return (
            f"You are given two arrays A and B of length {len(data['A'])}; the values within each array are "
            "distinct.\n"
            f"A: {' '.join(map(str, data['A']))}\n"
            f"B: {' '.join(map(str, data['B']))}\n"
            "One operation swaps two adjacent elements of A or two adjacent elements of B. Using operations, "
            "make the sum over i of (A[i] - B[i])^2 as small as possible. What is the minimum number of operations "
            "needed to reach that smallest possible sum?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), 10)
