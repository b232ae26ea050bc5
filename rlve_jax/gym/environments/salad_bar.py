"""SaladBar (POI 2014): the longest substring whose every prefix and every suffix has at least as many p as j."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_exact_ints
from rlve_jax.gym.env import Environment


def prefix_balance(text: str) -> list[int]:
    balance = [0]
    for ch in text:
        balance.append(balance[-1] + (1 if ch == "p" else -1))
    return balance


def is_good(balance: list[int], left: int, right: int) -> bool:
    """text[left..right] (inclusive): no prefix or suffix has more j than p."""
    inner = balance[left:right + 2]
    return min(inner) >= balance[left] and max(inner) <= balance[right + 1]


def longest_good(text: str) -> list[int]:
    balance = prefix_balance(text)
    best = [0, -1]
    for left in range(len(text)):
        highest = balance[left]
        for right in range(left, len(text)):
            if balance[right + 1] < balance[left]:
                break  # a prefix already has more j than p
            highest = max(highest, balance[right])
            if highest <= balance[right + 1] and right - left > best[1] - best[0]:
                best = [left, right]
    return best


class SaladBar(Environment):
    name = "SaladBar"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        while True:
            p_probability = rng.uniform(0, 0.7)
            text = "".join("p" if rng.random() < p_probability else "j" for _ in range(params["N"]))
            if "p" in text:
                left, right = longest_good(text)
                return {"S": text, "best": right - left + 1, "reference": f"{left} {right}"}

    def prompt(self, data):
        n = len(data["S"])
        return (
            f"You are given a string S = {data['S']} of length {n} made of the letters p and j; its characters are "
            f"S[0], ..., S[{n - 1}].\n"
            "Find the longest substring S[l..r] (inclusive) such that every prefix of it and every suffix of it "
            "contains at least as many letters p as letters j.\n\n"
            f"Output Format: a single line with two integers l r (0 <= l <= r < {n})."
        )

    def score(self, data, answer):
        left, right = parse_exact_ints(answer, 2)
        if not 0 <= left <= right < len(data["S"]) or not is_good(prefix_balance(data["S"]), left, right):
            return INVALID
        return ((right - left + 1) / data["best"]) ** 5
