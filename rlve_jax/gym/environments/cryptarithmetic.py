"""Cryptarithmetic: recover the digit of each symbol in a base-N addition written with symbols d[0..N-1]."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_ints


def to_digits(value: int, base: int) -> list[int]:
    """Digits, least significant first ([0] for zero)."""
    digits = []
    while True:
        value, digit = divmod(value, base)
        digits.append(digit)
        if not value:
            return digits


class Cryptarithmetic(Environment):
    name = "Cryptarithmetic"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        value_of = list(range(n))
        rng.shuffle(value_of)  # symbol k stands for digit value_of[k]
        symbol_of = {v: k for k, v in enumerate(value_of)}
        length = rng.randint(n + 3, max(n + 3, 2 * n))
        addends = [[rng.randint(0, n - 1) for _ in range(length - 1)] + [rng.randint(1, n - 1)] for _ in range(2)]
        total = sum(sum(d * n ** i for i, d in enumerate(digits)) for digits in addends)
        return {
            "N": n,
            "addends": [[symbol_of[d] for d in digits] for digits in addends],  # least significant first
            "sum": [symbol_of[d] for d in to_digits(total, n)],
            "reference": " ".join(map(str, value_of)),
        }

    def prompt(self, data):
        n = data["N"]

        def spell(symbols: list[int]) -> str:
            return "".join(f"d[{k}]" for k in reversed(symbols))

        first, second = (spell(a) for a in data["addends"])
        return (
            f"In base {n}, the digits 0..{n - 1} are written as symbols d[0], ..., d[{n - 1}]: each symbol stands "
            "for a different digit, but you do not know which. The following addition is correct (numbers are "
            "written most significant digit first):\n"
            f"  {first}\n+ {second}\n= {spell(data['sum'])}\n\n"
            "Find the digit of every symbol.\n\n"
            f"Output Format: a single line with {n} integers separated by spaces: the digits of d[0], d[1], ..., "
            f"d[{n - 1}] in this order (a permutation of 0..{n - 1})."
        )

    def score(self, data, answer):
        n = data["N"]
        values = parse_ints(answer)
        if sorted(values) != list(range(n)):
            return INVALID
        addends = [sum(values[k] * n ** i for i, k in enumerate(symbols)) for symbols in data["addends"]]
        computed = to_digits(sum(addends), n)
        shown = [values[k] for k in data["sum"]]
        width = max(len(computed), len(shown))
        matches = sum(i < len(computed) and i < len(shown) and computed[i] == shown[i] for i in range(width))
        return fraction_reward(matches, width, beta=3)
