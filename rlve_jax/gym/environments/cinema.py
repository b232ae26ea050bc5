"""Cinema: probability that N people who pick random seats among K and walk right all get a seat."""

from fractions import Fraction

from rlve_jax.gym.environments._common import grow_1p5, parse_exact_ints
from rlve_jax.gym.env import Environment


def seating_probability(n: int, k: int) -> Fraction:
    """(K+1-N)(K+1)^(N-1) of the K^N choice sequences succeed (parking functions on K spots)."""
    return Fraction((k + 1 - n) * (k + 1) ** (n - 1), k ** n)


class Cinema(Environment):
    name = "Cinema"
    long_answers = True  # exact answers outgrow Python's 4,300-digit int/str limit at high levels
    top_level = 13  # the largest draw of level 14 passes the output budget (tests/test_long_answers.py)

    def levels(self, difficulty):
        return [{"MAX_N_K": grow_1p5(4, difficulty)}]

    def sample(self, params, rng):
        top = params["MAX_N_K"]
        n = rng.randint(2, top)
        k = rng.randint(n, top)
        p = seating_probability(n, k)
        return {"N": n, "K": k, "reference": f"{p.numerator} {p.denominator}"}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"A cinema has {k} seats in a single row, numbered 1 to {k} from left to right, all empty. "
            f"{n} people enter one after another. Each person picks a seat number uniformly at random from "
            f"1 to {k}, independently of everyone else. If that seat is free, they sit there; otherwise they "
            "walk to the right and take the first free seat. If there is no free seat to the right, that "
            "person cannot sit.\n"
            "What is the probability that every person gets a seat?\n\n"
            "Output Format: two integers A and B separated by a space, meaning the probability is A/B, with "
            "the fraction fully reduced (gcd(A, B) = 1, B > 0)."
        )

    def score(self, data, answer):
        values = parse_exact_ints(answer, 2)
        p = seating_probability(data["N"], data["K"])
        return float(values == [p.numerator, p.denominator])
