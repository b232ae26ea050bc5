"""SplittingGame: take a bean from bottle i and put one into each of bottles j and k (i < j <= k)."""

from functools import reduce
from operator import xor

from rlve_jax.gym.environments._common import TwoWordAnswer


def bean_grundy(n: int) -> list[int]:
    """Every bean is its own game: g(i) = mex{g(j) XOR g(k) : i < j <= k < n}; a bean in the last bottle is 0."""
    grundy = [0] * n
    for i in range(n - 2, -1, -1):
        options = {grundy[j] ^ grundy[k] for j in range(i + 1, n) for k in range(j, n)}
        grundy[i] = next(g for g in range(len(options) + 1) if g not in options)
    return grundy


def first_player_wins(beans: list[int]) -> bool:
    grundy = bean_grundy(len(beans))
    return reduce(xor, (g for g, count in zip(grundy, beans) if count % 2), 0) != 0


class SplittingGame(TwoWordAnswer):
    name = "SplittingGame"
    words = ("Alice", "Bob")

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        beans, winner = self.draw_with_answer(
            rng, lambda: [rng.randint(0, 2 * n) for _ in range(n)], first_player_wins)
        return {"beans": beans, "reference": winner}

    def prompt(self, data):
        n = len(data["beans"])
        return (
            f"There are {n} bottles numbered 0 to {n - 1}; bottle i holds P[i] beans, where P = "
            f"{' '.join(map(str, data['beans']))}.\n"
            "Alice and Bob move alternately, Alice first. A move chooses indices i < j <= k such that bottle i "
            "is not empty, takes one bean out of bottle i, and puts one bean into bottle j and one bean into "
            "bottle k (two beans into bottle j if j = k). The player who cannot move loses.\n"
            "Who wins with optimal play?\n\n"
            "Output Format: a single word, `Alice` or `Bob`."
        )
