"""CoinSquareGame: take coins from the left, at most twice the opponent's last take; Alice's optimal total."""

from functools import lru_cache

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def first_player_best(coins: list[int]) -> int:
    """Minimax: best(i, limit) = max over takes t <= limit of (coins left from i) - best(i + t, 2t)."""
    n = len(coins)
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + coins[i]

    @lru_cache(maxsize=None)
    def best(i: int, limit: int) -> int:
        if i == n:
            return 0
        return max(suffix[i] - best(i + t, 2 * t) for t in range(1, min(limit, n - i) + 1))

    return best(0, 2)


class CoinSquareGame(ExactIntegerEnvironment):
    name = "CoinSquareGame"

    def levels(self, difficulty):
        return [{"N": 5 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        coins = [rng.randint(1, 2 * n) for _ in range(n)]
        return {"coins": coins, "reference": str(first_player_best(coins))}

    def prompt(self, data):
        return (
            f"There are {len(data['coins'])} coins in a row; from left to right their values are: "
            f"{' '.join(map(str, data['coins']))}\n"
            "Alice and Bob take turns, Alice first. On each turn the player takes some coins from the left end of "
            "the row. On her first turn Alice takes 1 or 2 coins. After that, if the opponent took k coins on the "
            "previous turn, the player takes between 1 and 2k coins (never more than remain). The game ends when "
            "no coin is left. Both players play optimally, each trying to maximize the total value of the coins "
            "they take.\n"
            "What is the total value Alice gets?\n\n"
            "Output Format: a single integer."
        )
