"""DeltaNimGame: Nim on sorted piles where every move must keep the piles non-decreasing."""

from functools import reduce
from operator import xor

from rlve_jax.gym.environments._common import TwoWordAnswer


def first_player_wins(piles: list[int]) -> bool:
    """Staircase Nim on the gaps between consecutive piles: XOR of every other gap, from the last one."""
    gaps = [b - a for a, b in zip([0, *piles], piles)]
    return reduce(xor, gaps[::-1][::2], 0) != 0


class DeltaNimGame(TwoWordAnswer):
    name = "DeltaNimGame"
    words = ("Alice", "Bob")

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        piles, winner = self.draw_with_answer(
            rng, lambda: sorted(rng.randint(1, 2 * n) for _ in range(n)), first_player_wins)
        return {"piles": piles, "reference": winner}

    def prompt(self, data):
        piles = data["piles"]
        return (
            f"There are {len(piles)} piles of stones with sizes {' '.join(map(str, piles))} "
            "(in non-decreasing order).\n"
            "Alice and Bob take turns, Alice first. On a turn the player chooses one pile and removes a positive "
            "number of stones from it, but after the move the pile sizes, read in the same order, must still be "
            "non-decreasing (and non-negative). The player who cannot make a move loses.\n"
            "Who wins if both play optimally?\n\n"
            "Output Format: a single word, `Alice` or `Bob`."
        )
