"""NumberPartitionCounting: partitions of N into exactly K positive parts."""

from rlve_jax.gym.environments._common import CountingEnvironment, grow_1p5


def partitions_into_parts(n: int, k: int) -> int:
    """Exactly k parts <-> (conjugate) largest part exactly k <-> partitions of n - k into parts <= k."""
    rest = n - k
    ways = [1] + [0] * rest
    for part in range(1, min(k, rest) + 1):
        for total in range(part, rest + 1):
            ways[total] += ways[total - part]
    return ways[rest]


class NumberPartitionCounting(CountingEnvironment):
    name = "NumberPartitionCounting"
    positive_only = True

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(10, difficulty)}]

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
