"""HalvingChainCounting (held-out): sequences from N where each appended number is at most half the last."""

from rlve_jax.gym.environments._common import grow_1p5, perturb_count, score_count
from rlve_jax.gym.env import Environment


def count_chains(n: int) -> int:
    """f(x) = 1 + sum of f(y) for 1 <= y <= x // 2, with prefix sums."""
    chains, prefix = [0, 1], [0, 1]
    for x in range(2, n + 1):
        chains.append(1 + prefix[x // 2])
        prefix.append(prefix[-1] + chains[-1])
    return chains[n]


class HalvingChainCounting(Environment):
    name = "HalvingChainCounting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(16, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(1, params["MAX_N"])
        return {"N": n, "reference": str(count_chains(n))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Count the sequences of positive integers that start with {n} and are built as follows: after the "
            "current last number x you may stop, or append a positive integer that is at most half of x "
            f"(that is, at most floor(x / 2)) and continue. The sequence consisting of just {n} counts too.\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
