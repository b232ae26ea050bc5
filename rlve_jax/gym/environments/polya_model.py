"""PolyaModel: probability of given colours at given draws of a Polya urn, as a reduced fraction.

Known bug of the original (rlve_reference.md, Known bugs 1): its scorer parsed the raw output
instead of the text inside the answer markers, so tagged answers scored -1. We implement the
intended behaviour: the extracted answer is parsed like in every other environment.
"""

from fractions import Fraction
from math import prod

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p1, parse_int


def event_probability(counts: list[int], d: int, colours: list[int]) -> Fraction:
    """By exchangeability the draws at the given steps behave like the first draws, in order:
    the k-th event has probability (a_c + d * earlier events of colour c) / (total + d * k)."""
    seen = [0] * len(counts)
    factors = []
    for k, colour in enumerate(colours):
        factors.append(Fraction(counts[colour] + d * seen[colour], sum(counts) + d * k))
        seen[colour] += 1
    return prod(factors, start=Fraction(1))


class PolyaModel(Environment):
    name = "PolyaModel"

    def levels(self, difficulty):
        return [{"MAX_T_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        top = params["MAX_T_N"]
        t = rng.randint(2, top)
        counts = [rng.randint(1, top) for _ in range(t)]
        d, n = rng.randint(1, top), rng.randint(1, top)
        steps = sorted(rng.sample(range(1, 2 * n + 1), n))
        colours = [rng.randrange(t) for _ in range(n)]
        p = event_probability(counts, d, colours)
        return {"counts": counts, "D": d, "steps": steps, "colours": colours,
                "reference": f"{p.numerator}/{p.denominator}"}

    def prompt(self, data):
        counts = data["counts"]
        initial = ", ".join(f"{a} ball(s) of colour {c + 1}" for c, a in enumerate(counts))
        events = "\n".join(f"- draw number {step} gives colour {colour + 1}"
                           for step, colour in zip(data["steps"], data["colours"]))
        return (
            f"An urn contains balls of {len(counts)} colours: {initial}. Repeatedly, one ball is drawn uniformly at "
            f"random; it is put back together with {data['D']} additional ball(s) of the same colour. "
            f"What is the probability that all of the following happen?\n{events}\n\n"
            "Output Format: the probability as a fraction p/q in lowest terms, e.g. `3/10` (without quotes)."
        )

    def score(self, data, answer):
        parts = answer.split("/")
        if len(parts) != 2:
            raise FormatError("expected p/q")
        numerator, denominator = parse_int(parts[0]), parse_int(parts[1])
        if denominator <= 0:
            raise FormatError("non-positive denominator")
        return float(f"{numerator}/{denominator}" == data["reference"])
