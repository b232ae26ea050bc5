"""SumXorDivisorNum (held-out): the sum of d(i XOR j XOR X) over a grid of i and j, with d(0) = 0."""

from rlve_jax.gym.environments._common import grow_1p5, perturb_count, score_count
from rlve_jax.gym.environments._numbers import divisor_counts
from rlve_jax.gym.env import Environment


class SumXorDivisorNum(Environment):
    name = "SumXorDivisorNum"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        high = params["MAX_N_M"]
        n, m, x = rng.randint(3, high), rng.randint(3, high), rng.randint(0, high)
        d = divisor_counts(2 ** max(n, m, x).bit_length())
        total = sum(d[i ^ j ^ x] for i in range(n + 1) for j in range(m + 1))
        return {"N": n, "M": m, "X": x, "reference": str(total)}

    def prompt(self, data):
        return (
            "Let d(x) be the number of positive divisors of x for x >= 1, and d(0) = 0. Compute the sum of "
            f"d(i XOR j XOR {data['X']}) over all integers 0 <= i <= {data['N']} and 0 <= j <= {data['M']}, where "
            "XOR is the bitwise exclusive or.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10)
