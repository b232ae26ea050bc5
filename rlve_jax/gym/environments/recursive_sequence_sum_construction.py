"""RecursiveSequenceSumConstruction: distinct indices n >= 1 whose values F(n) = A*F(n-1) + B sum to S."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p1, parse_ints


def sequence(f0: int, a: int, b: int, length: int) -> list[int]:
    """F(0), ..., F(length)."""
    values = [f0]
    for _ in range(length):
        values.append(a * values[-1] + b)
    return values


class RecursiveSequenceSumConstruction(Environment):
    name = "RecursiveSequenceSumConstruction"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        f0 = rng.randint(1, 128)
        a = 1 if rng.random() < 0.3 else rng.randint(2, 16)
        b = rng.randint(1, 16384)  # positive, so F increases strictly
        chosen = [i for i in range(1, n + 1) if rng.random() < 0.5] or [rng.randint(1, n)]
        values = sequence(f0, a, b, n)
        return {"N": n, "F0": f0, "A": a, "B": b, "S": sum(values[i] for i in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        return (
            f"A sequence is defined by F(0) = {data['F0']} and F(n) = {data['A']} * F(n-1) + {data['B']} for n >= 1.\n"
            f"Find a set of distinct positive indices n_1, n_2, ..., n_k such that "
            f"F(n_1) + F(n_2) + ... + F(n_k) = {data['S']}.\n\n"
            "Output Format: a single line with the chosen indices separated by spaces."
        )

    def score(self, data, answer):
        indices = parse_ints(answer)
        if not indices:
            raise FormatError("no indices")
        if len(set(indices)) != len(indices) or min(indices) <= 0:
            return -0.5
        limit = 10 * data["N"]  # far beyond the planted indices F(n) only overshoots
        if max(indices) > limit:
            return 0.0
        values = sequence(data["F0"], data["A"], data["B"], limit)
        return float(sum(values[i] for i in indices) == data["S"])
