"""NumberPartitionCounting: partitions of N into exactly K positive parts."""

from environments._combob_util import CountingEnvironment
from rlve_jax.env import grow


def partitions_into_parts(n: int, k: int) -> int:
    """p(n, k) = p(n-1, k-1) (a part equal to 1) + p(n-k, k) (all parts >= 2: subtract 1 from each)."""
    table = [[0] * (k + 1) for _ in range(n + 1)]
    table[0][0] = 1
    for total in range(1, n + 1):
        for parts in range(1, min(total, k) + 1):
            table[total][parts] = table[total - 1][parts - 1] + table[total - parts][parts]
    return table[n][k]


class NumberPartitionCounting(CountingEnvironment):
    name = "NumberPartitionCounting"
    zero_answer_is_format_error = True

    def levels(self, difficulty):
        return [{"MAX_N": grow(10, lambda x: int(1.5 * x), difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(1, params["MAX_N"])
        k = rng.randint(1, n)
        return {"N": n, "K": k, "gold": partitions_into_parts(n, k)}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"In how many ways can {n} be written as a sum of exactly {k} positive integers, where the order of "
            f"the summands does not matter (for example, 1+2 and 2+1 are the same way)?\n\n"
            "Output Format: a single integer, the number of ways."
        )
