"""AdditionTable: decode a base-N addition table written with letters instead of digits."""

import string

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_ints


class AdditionTable(Environment):
    name = "AdditionTable"

    def levels(self, difficulty):
        return [{"N": min(3 + difficulty, 26)}]

    def sample(self, params, rng):
        n = params["N"]
        digits = list(range(n))
        rng.shuffle(digits)  # digits[i] is the value of the i-th letter
        return {"N": n, "digits": digits}

    def prompt(self, data):
        n, digits = data["N"], data["digits"]
        letters = string.ascii_lowercase[:n]
        letter_of = {value: letters[i] for i, value in enumerate(digits)}

        def spell(value: int) -> str:
            return (letter_of[value // n] if value >= n else "") + letter_of[value % n]

        width = 3
        header = "+".ljust(width) + "".join(ch.ljust(width) for ch in letters)
        rows = [ch.ljust(width) + "".join(spell(digits[i] + digits[j]).ljust(width) for j in range(n))
                for i, ch in enumerate(letters)]
        table = "\n".join(line.rstrip() for line in [header] + rows)
        return (
            f"Consider a number system with an unknown base N. Each digit 0..N-1 is written as a distinct letter, "
            f"and exactly these {n} letters are used: {', '.join(letters)}. The table below gives, for every row "
            "letter x and column letter y, the sum x + y written in this base with letters (an entry of two letters "
            "is a two-digit number, most significant digit first).\n\n"
            f"{table}\n\n"
            "Find the base N and the digit value of each letter.\n\n"
            f"Output Format: a single line with {n + 1} integers separated by spaces: first N, then the values of "
            f"{', '.join(letters)} in this order."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        n, digits = data["N"], data["digits"]
        if len(values) != n + 1:
            return INVALID
        if values[0] != n:
            return 0.0
        return fraction_reward(sum(a == b for a, b in zip(values[1:], digits)), n, beta=3)

    def reference(self, problem):
        return " ".join(map(str, [problem.data["N"]] + problem.data["digits"]))
