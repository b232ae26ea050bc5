"""WIL: set to zero one interval of at most D consecutive elements, then find the longest interval whose
sum is at most P (POI 2015 "Wilcze doly")."""

from itertools import accumulate

from rlve_jax.gym.environments._common import INVALID, grow_1p1, maximization_reward, parse_ints
from rlve_jax.gym.env import Environment, FormatError


def longest_interval(values: list[int], width: int, budget: int) -> tuple[int, list[int]]:
    """(length, [l1, r1, l2, r2], 1-based): for every interval, zeroing its heaviest window of
    min(D, length) elements is best, so check each interval directly."""
    n = len(values)
    prefix = list(accumulate(values, initial=0))
    best = (0, [])
    for low in range(n):
        for high in range(low + best[0], n):
            span = min(width, high - low + 1)
            start = max(range(low, high - span + 2), key=lambda s: prefix[s + span] - prefix[s])
            if prefix[high + 1] - prefix[low] - (prefix[start + span] - prefix[start]) <= budget:
                best = (high - low + 1, [start + 1, start + span, low + 1, high + 1])
    return best


class WIL(Environment):
    name = "WIL"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        width = rng.randint(1, n - 1)
        heaviest = max(sum(values[s:s + width]) for s in range(n - width + 1))
        budget = rng.randint(1, sum(values) - heaviest)  # at the top of the range the whole array fits
        length, intervals = longest_interval(values, width, budget)
        return {"A": values, "D": width, "P": budget, "optimum": length, "reference": " ".join(map(str, intervals))}

    def prompt(self, data):
        n = len(data["A"])
        values = " ".join(f"A[{i + 1}]={v}" for i, v in enumerate(data["A"]))
        return (
            f"You are given an array of {n} positive integers (1-indexed): {values}\n\n"
            f"First choose an interval [l1, r1] of at most {data['D']} consecutive positions and set all its "
            f"elements to 0. Then choose an interval [l2, r2] whose sum (after the zeroing) is at most "
            f"{data['P']}. Maximize the length r2 - l2 + 1 of the second interval.\n\n"
            "Output Format: a single line with four integers `l1 r1 l2 r2` separated by spaces (1-based, "
            "l1 <= r1 and l2 <= r2)."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != 4:
            raise FormatError("expected four integers")
        l1, r1, l2, r2 = values
        n = len(data["A"])
        if not (1 <= l1 <= r1 <= n and r1 - l1 + 1 <= data["D"] and 1 <= l2 <= r2 <= n):
            return INVALID
        if sum(v for i, v in enumerate(data["A"][l2 - 1:r2], start=l2) if not l1 <= i <= r1) > data["P"]:
            return INVALID
        return maximization_reward(r2 - l2 + 1, data["optimum"], beta=5)
