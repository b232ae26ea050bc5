"""KUR (POI): count occurrences of a pattern in the binary string C[i] = [(A*i + B) mod N >= P]."""

import math

from rlve_jax.gym.environments._strings import occurrences
from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_count


class KUR(Environment):
    name = "KUR"

    def levels(self, difficulty):
        return [{"MAX_N": 8 * 2 ** difficulty, "MAX_M": grow_1p1(8, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(8, params["MAX_N"])
        a = rng.randint(1, n - 1)
        while math.gcd(a, n) != 1:
            a = rng.randint(1, n - 1)
        b, p = rng.randint(0, n - 1), rng.randint(1, n - 1)
        text = "".join("1" if (a * i + b) % n >= p else "0" for i in range(n))
        m = rng.randint(2, min(params["MAX_M"], n))
        start = rng.randint(0, n - m)
        pattern = text[start:start + m]
        return {"N": n, "A": a, "B": b, "P": p, "T": pattern, "answer": occurrences(text, pattern)}

    def prompt(self, data):
        n, a, b, p = data["N"], data["A"], data["B"], data["P"]
        return (
            f"Define a binary string C of length {n}: for i = 0, 1, ..., {n - 1}, C[i] = 1 if "
            f"({a} * i + {b}) mod {n} >= {p}, and C[i] = 0 otherwise.\n"
            f"How many times does the pattern T = {data['T']} occur in C as a contiguous substring? Occurrences may "
            "overlap; count every starting position.\n\n"
            "Output Format: a single integer, the number of occurrences."
        )

    def score(self, data, answer):
        return score_count(answer, data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
