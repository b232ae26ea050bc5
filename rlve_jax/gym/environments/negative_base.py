"""NegativeBase: write N in base -R (digits 0..R-1, most significant first)."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints


def to_negative_base(n: int, radix: int) -> list[int]:
    """Digits of n in base -radix: n = q * (-radix) + r with 0 <= r < radix at each step."""
    digits = []
    while n:
        remainder = n % radix
        digits.append(remainder)
        n = (n - remainder) // -radix
    return digits[::-1] or [0]


class NegativeBase(Environment):
    name = "NegativeBase"

    def levels(self, difficulty):
        max_n = 4 * 2**difficulty
        return [{"MAX_N": max_n, "MAX_R": min(max_n, 16)}]

    def sample(self, params, rng):
        n = rng.randint(-params["MAX_N"], params["MAX_N"])
        radix = rng.randint(2, params["MAX_R"])
        return {"N": n, "R": radix, "reference": " ".join(map(str, to_negative_base(n, radix)))}

    def prompt(self, data):
        r = data["R"]
        return (
            f"Write the integer {data['N']} in base -{r}: find digits d_k ... d_1 d_0, each between 0 and {r - 1}, "
            f"such that {data['N']} = d_k * (-{r})^k + ... + d_1 * (-{r}) + d_0, with no leading zeros "
            "(zero is written as the single digit 0).\n\n"
            "Output Format: the digits from the most significant to the least significant, written in decimal "
            "and separated by single spaces, e.g. `1 0 3`."
        )

    def score(self, data, answer):
        digits, gold = parse_ints(answer), list(map(int, data["reference"].split()))
        if len(digits) != len(gold):
            return 0.0
        return sum(a == b for a, b in zip(digits, gold)) / len(gold)  # linear, as in the original
