"""SubsetSumSequence (held-out): the N-th smallest positive sum of distinct powers of K."""

from rlve_jax.gym.environments._common import parse_int, perturb_count, ratio_reward
from rlve_jax.gym.env import Environment


def nth_power_sum(n: int, k: int) -> int:
    """The binary digits of N, read as base-K digits (by hand: int(text, K) takes no base above 36, and K reaches 42
    at level 40)."""
    return sum(k ** i for i, bit in enumerate(reversed(bin(n)[2:])) if bit == "1")


def has_binary_digits(value: int, k: int) -> bool:
    while value:
        value, digit = divmod(value, k)
        if digit > 1:
            return False
    return True


class SubsetSumSequence(Environment):
    name = "SubsetSumSequence"
    perturb = perturb_count

    def levels(self, difficulty):
        max_n = 3 * 2 ** difficulty
        return [{"MAX_N": max_n, "MAX_K": min(max_n, 2 + difficulty)}]

    def sample(self, params, rng):
        n, k = rng.randint(1, params["MAX_N"]), rng.randint(2, params["MAX_K"])
        return {"N": n, "K": k, "reference": str(nth_power_sum(n, k))}

    def prompt(self, data):
        k, n = data["K"], data["N"]
        return (
            f"Consider all positive integers that can be written as a sum of distinct powers of {k} (that is, "
            f"{k}^0, {k}^1, {k}^2, ..., each used at most once), listed in increasing order. What is the "
            f"{n}-th number of this sequence (counting from 1)?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        value = parse_int(answer)
        if value <= 0:
            return -1.0
        if not has_binary_digits(value, data["K"]):
            return 0.0  # not a sum of distinct powers at all (the original's invalid reward here is 0)
        return ratio_reward(value, int(data["reference"]), beta=2)
