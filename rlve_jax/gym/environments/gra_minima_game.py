"""GraMinimaGame (held-out): take any non-empty subset of the cards and score its minimum; optimal difference."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def optimal_difference(cards: list[int]) -> int:
    """With cards sorted, an optimal move always takes a suffix; f_i = max(f_{i-1}, a_i - f_{i-1})."""
    best = 0
    for card in sorted(cards):
        best = max(best, card - best)
    return best


class GraMinimaGame(ExactIntegerEnvironment):
    name = "GraMinimaGame"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        cards = [rng.randint(1, 2 * n) for _ in range(n)]
        return {"cards": cards, "reference": str(optimal_difference(cards))}

    def prompt(self, data):
        return (
            f"There are {len(data['cards'])} cards on the table with the numbers: {' '.join(map(str, data['cards']))}\n"
            "Alice and Bob play a game, Alice first. On a turn a player takes any non-empty subset of the remaining "
            "cards and gains a number of points equal to the smallest number among the cards taken. The game ends "
            "when no cards remain. Both players play optimally, each trying to maximize (own points - opponent's "
            "points). What is Alice's points minus Bob's points at the end?\n\n"
            "Output Format: a single integer."
        )
