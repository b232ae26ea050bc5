"""EuclidGame (C4, C16): who wins Euclid's subtraction game from (X, Y) with optimal play."""

from rlve_jax.gym.environments._common import TwoWordAnswer

PLAYERS = ("Stan", "Ollie")


def first_player_wins(x: int, y: int) -> bool:
    """The player to move wins iff some quotient before the end is >= 2, or x == y."""
    x, y = max(x, y), min(x, y)
    mover_wins = True
    while True:
        if x == y or x // y >= 2:
            return mover_wins
        x, y = y, x - y  # forced move: y < x < 2y
        mover_wins = not mover_wins


class EuclidGame(TwoWordAnswer):
    name = "EuclidGame"
    words = PLAYERS

    def levels(self, difficulty):
        return [{"MAX_X_Y": 16 * 2**difficulty}]

    def sample(self, params, rng):
        top = params["MAX_X_Y"]
        (x, y), winner = self.draw_with_answer(rng, lambda: (rng.randint(1, top), rng.randint(1, top)),
                                               lambda xy: first_player_wins(*xy))
        return {"X": x, "Y": y, "reference": winner}

    def prompt(self, data):
        return (
            f"Stan and Ollie play a game starting with two natural numbers X = {data['X']} and "
            f"Y = {data['Y']}. Stan moves first, then they alternate. A move consists of subtracting "
            "any positive multiple of the smaller number from the larger one, as long as the result "
            "stays non-negative. The player who makes one of the numbers become zero wins.\n"
            "Assuming both players play optimally, who wins?\n\n"
            "Output Format: a single word, either `Stan` or `Ollie`."
        )
