"""ChoHamsters (POI 2011): the shortest string with at least M occurrences of the given names."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int

INF = float("inf")


def overlap(a: str, b: str) -> int:
    """Longest proper overlap: a suffix of a equal to a prefix of b, shorter than both."""
    for k in range(min(len(a), len(b)) - 1, 0, -1):
        if a.endswith(b[:k]):
            return k
    return 0


def min_plus(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    n = len(a)
    return [[min(a[i][k] + b[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def shortest_length(names: list[str], m: int) -> int:
    """len(first name) + (M-1) cheapest extensions, by min-plus matrix powers (no name contains another)."""
    n = len(names)
    step = [[len(b) - overlap(a, b) for b in names] for a in names]
    power = [[0 if i == j else INF for j in range(n)] for i in range(n)]
    exponent = m - 1
    while exponent:
        if exponent & 1:
            power = min_plus(power, step)
        step = min_plus(step, step)
        exponent >>= 1
    return int(min(len(names[i]) + power[i][j] for i in range(n) for j in range(n)))


class ChoHamsters(Environment):
    name = "ChoHamsters"

    def levels(self, difficulty):
        max_m = 4
        for _ in range(difficulty):
            max_m = int(1.5 * max_m + 1)
        return [{"N": 1 + difficulty, "MAX_M": max_m}]

    def sample(self, params, rng):
        n = params["N"]
        names: list[str] = []
        while len(names) < n:
            name = "".join(rng.choice("ab") for _ in range(rng.randint(2 * n, 3 * n)))
            if all(name not in other and other not in name for other in names):
                names.append(name)
        m = rng.randint(1, params["MAX_M"])
        return {"names": names, "M": m, "answer": shortest_length(names, m)}

    def prompt(self, data):
        names = "\n".join(data["names"])
        return (
            f"You are given {len(data['names'])} strings over the letters a and b (none of them is a substring of "
            f"another):\n{names}\n\n"
            f"Find the minimum length of a string that contains at least {data['M']} occurrences of these strings in "
            "total. Occurrences may overlap, and every position where one of the strings starts counts separately.\n\n"
            "Output Format: a single integer, the minimum length."
        )

    def score(self, data, answer):
        return float(parse_int(answer) == data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
