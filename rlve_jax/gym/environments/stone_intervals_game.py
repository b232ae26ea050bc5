"""StoneIntervalsGame (held-out): take a pile next to an empty one; Alice's total under optimal play."""

from functools import lru_cache

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def alice_total(piles: list[int]) -> int:
    """Minimax over the set of taken piles: best (mover - other) difference, then Alice's share."""
    n = len(piles)
    empty_start = sum(1 << i for i, p in enumerate(piles) if p == 0)

    @lru_cache(maxsize=None)
    def advantage(empty: int) -> int:
        best = None
        for i in range(n):
            if empty >> i & 1:
                continue
            if (i > 0 and empty >> (i - 1) & 1) or (i + 1 < n and empty >> (i + 1) & 1):
                value = piles[i] - advantage(empty | 1 << i)
                best = value if best is None else max(best, value)
        return 0 if best is None else best

    return (sum(piles) + advantage(empty_start)) // 2


class StoneIntervalsGame(ExactIntegerEnvironment):
    name = "StoneIntervalsGame"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        piles = [rng.randint(1, 2 * n) for _ in range(n)]
        for i in rng.sample(range(n), rng.randint(1, n - 2)):
            piles[i] = 0
        return {"piles": piles, "reference": str(alice_total(piles))}

    def prompt(self, data):
        piles = data["piles"]
        listing = " ".join(map(str, piles))
        return (
            f"There are {len(piles)} piles of stones in a row with sizes: {listing}\n"
            "A pile of size 0 is empty. Alice and Bob take turns, Alice first. On a turn a player must take a "
            "non-empty pile that is adjacent (immediately left or right in the row) to an empty pile; the player "
            "gains all of its stones and the pile becomes empty. The game ends when every pile is empty. Both "
            "players play optimally to maximize their own total. How many stones does Alice get?\n\n"
            "Output Format: a single integer."
        )
