"""CombinationOddSubsequenceCounting: subsequences whose chained binomial coefficients are all odd.

By Lucas' theorem C(a, b) is odd exactly when the bits of b are a subset of the bits of a.
"""

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format, grow_1p1


def count_odd_chains(values: list[int]) -> int:
    """Chains i1 < ... < ik (k >= 2) with values[i_{j+1}] a submask of values[i_j]."""
    starting_at = [1] * len(values)  # chains of any length >= 1 that start at index i
    for i in range(len(values) - 1, -1, -1):
        starting_at[i] += sum(starting_at[j] for j in range(i + 1, len(values))
                              if values[j] & values[i] == values[j])
    return sum(starting_at) - len(values)


class CombinationOddSubsequenceCounting(CountingEnvironment):
    name = "CombinationOddSubsequenceCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = rng.sample(range(1, 2 * n), n)
        return {"N": n, "A": values, "gold": count_odd_chains(values)}

    def prompt(self, data):
        return (
            f"You are given a sequence of {data['N']} distinct positive integers: "
            f"{' '.join(map(str, data['A']))}\n"
            "Count the subsequences b1, b2, ..., bk with k >= 2 (elements taken in their original order) for "
            "which the product C(b1, b2) * C(b2, b3) * ... * C(b(k-1), bk) is odd. Here C(x, y) is the "
            "binomial coefficient 'x choose y', which is 0 when y > x.\n\n" + count_output_format()
        )
