"""MultipleFlippingGame: pick a white cell x and flip x, 2x, ..., kx; does the first player win?"""

from functools import reduce
from operator import xor

from rlve_jax.gym.environments._common import TwoWordAnswer, grow_1p1


def single_cell_grundy(n: int) -> list[int]:
    """Coin-turning theorem: a position is the XOR of its white cells, each worth mex over k of XOR g(2x..kx)."""
    grundy = [0] * (n + 1)
    for x in range(n, 0, -1):
        options, acc = {0}, 0
        for multiple in range(2 * x, n + 1, x):
            acc ^= grundy[multiple]
            options.add(acc)
        grundy[x] = next(g for g in range(len(options) + 1) if g not in options)
    return grundy


def first_player_wins(n: int, white: list[int]) -> bool:
    grundy = single_cell_grundy(n)
    return reduce(xor, (grundy[x] for x in white), 0) != 0


class MultipleFlippingGame(TwoWordAnswer):
    name = "MultipleFlippingGame"
    words = ("Yes", "No")

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        white, answer = self.draw_with_answer(
            rng, lambda: [x for x in range(1, n + 1) if rng.random() < 0.5], lambda white: first_player_wins(n, white))
        return {"N": n, "white": white, "reference": answer}

    def prompt(self, data):
        white = " ".join(map(str, data["white"])) or "(none)"
        return (
            f"There are {data['N']} cells numbered 1 to {data['N']}; each is white or black. The white cells are: "
            f"{white}; all other cells are black.\n"
            "Two players move alternately. A move chooses a white cell x and an integer k >= 1 with k*x <= "
            f"{data['N']}, and flips the colour of cells x, 2x, ..., kx (white becomes black and black becomes "
            "white). The player who cannot move (no white cell left) loses.\n"
            "With optimal play, does the first player win?\n\n"
            "Output Format: a single word, `Yes` or `No`."
        )
