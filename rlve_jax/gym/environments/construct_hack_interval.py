"""ConstructHackInterval: an interval [L, R] whose total digit sum is divisible by MOD (R <= 10 * MOD)."""

from rlve_jax.gym.environments._common import parse_pair
from rlve_jax.gym.env import Environment


def digit_sum_prefix(n: int) -> int:
    """Sum of the decimal digit sums of 0, 1, ..., n, digit by digit (no loop over the numbers)."""
    total, power = 0, 1
    while power <= n:
        high, digit, low = n // (power * 10), n // power % 10, n % power
        total += high * 45 * power + digit * (digit - 1) // 2 * power + digit * (low + 1)
        power *= 10
    return total


class ConstructHackInterval(Environment):
    name = "ConstructHackInterval"

    def levels(self, difficulty):
        return [{"MAX_MOD": 10 * 2**difficulty}]

    def sample(self, params, rng):
        mod = rng.randint(1, params["MAX_MOD"])
        seen = {0: 0}  # prefix digit-sum residue -> first n; pigeonhole gives R <= MOD
        n, prefix = 0, 0
        while True:
            n += 1
            prefix = (prefix + sum(map(int, str(n)))) % mod
            if prefix in seen:
                return {"MOD": mod, "reference": f"{seen[prefix] + 1} {n}"}
            seen[prefix] = n

    def prompt(self, data):
        mod = data["MOD"]
        return (
            "Let S(L, R) be the sum of the decimal digit sums of all integers from L to R inclusive; for example "
            "S(9, 11) = 9 + (1 + 0) + (1 + 1) = 12.\n"
            f"Find integers L and R with 1 <= L <= R <= {10 * mod} such that S(L, R) is divisible by {mod}.\n\n"
            "Output Format: a single line with L and R separated by a space."
        )

    def score(self, data, answer):
        left, right = parse_pair(answer)
        mod = data["MOD"]
        if not 1 <= left <= right <= 10 * mod:
            return -0.5
        return float((digit_sum_prefix(right) - digit_sum_prefix(left - 1)) % mod == 0)

    def perturb(self, problem, answer):
        return f"0 {answer.split()[1]}"  # with MOD = 1 every valid interval is correct, so leave the bounds
