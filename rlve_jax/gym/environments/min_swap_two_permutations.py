"""MinSwapTwoPermutations: swap A[i] and B[i] at as few indices as possible so that neither array has a
repeated value."""

from rlve_jax.gym.environments._common import INVALID, drop_last_tokens, grow_1p1, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def fewest_swaps(a: list[int], b: list[int]) -> list[int]:
    """Index i links the values A[i] and B[i]; every value occurs twice, so the links form cycles. Both
    arrays are repeat-free exactly when each cycle is oriented consistently (A takes the value entering
    each index), and a cycle has two orientations: keep the one with fewer swaps."""
    where: dict[int, list[int]] = {}
    for i, (x, y) in enumerate(zip(a, b)):
        where.setdefault(x, []).append(i)
        where.setdefault(y, []).append(i)
    seen = [False] * len(a)
    swaps = []
    for start in range(len(a)):
        if seen[start]:
            continue
        members, flipped = [], []
        i, entering = start, a[start]
        while True:
            seen[i] = True
            members.append(i)
            if a[i] != entering:
                flipped.append(i)
            leaving = b[i] if a[i] == entering else a[i]
            following = [j for j in where[leaving] if j != i]
            if not following or seen[following[0]]:
                break
            i, entering = following[0], leaving
        if 2 * len(flipped) > len(members):
            flipped = sorted(set(members) - set(flipped))
        swaps += flipped
    return sorted(swaps)


def swapped(a: list[int], b: list[int], indices: list[int]) -> tuple[list[int], list[int]]:
    a, b = list(a), list(b)
    for i in indices:
        a[i], b[i] = b[i], a[i]
    return a, b


def repeat_free(*arrays: list[int]) -> bool:
    return all(len(set(values)) == len(values) for values in arrays)


class MinSwapTwoPermutations(Environment):
    name = "MinSwapTwoPermutations"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            a, b = list(range(1, n + 1)), list(range(1, n + 1))
            rng.shuffle(a)
            rng.shuffle(b)
            a, b = swapped(a, b, [i for i in range(n) if rng.random() < 0.5])
            if not repeat_free(a, b):
                break
        swaps = fewest_swaps(a, b)
        return {"A": a, "B": b, "optimum": len(swaps), "reference": " ".join(map(str, swaps))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"You are given two arrays A and B of length {n} (0-indexed); together they contain every integer "
            f"from 1 to {n} exactly twice:\n"
            f"A: {' '.join(map(str, data['A']))}\nB: {' '.join(map(str, data['B']))}\n\n"
            "You may choose indices i and swap A[i] with B[i]. Choose as few indices as possible so that "
            "afterwards neither A nor B contains a repeated value.\n\n"
            "Output Format: a single line with the chosen indices (distinct, 0-based) separated by spaces."
        )

    def score(self, data, answer):
        indices = parse_ints(answer)
        n = len(data["A"])
        if any(not 0 <= i < n for i in indices) or len(set(indices)) != len(indices):
            return INVALID
        if not repeat_free(*swapped(data["A"], data["B"], indices)):
            return -0.2
        return minimization_reward(data["optimum"], len(indices), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
