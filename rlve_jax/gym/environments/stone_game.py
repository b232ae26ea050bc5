"""StoneGame: split a heap of at least F stones into M >= 2 nearly equal heaps; who wins?"""

from functools import reduce
from operator import xor

from rlve_jax.gym.environments._common import TwoWordAnswer, grow


def split_grundy(limit: int, f: int) -> list[int]:
    """Sprague-Grundy values of single heaps 0..limit; a split into M parts has r parts of q+1 and M-r of q."""
    grundy = [0] * (limit + 1)
    for stones in range(f, limit + 1):
        options = set()
        for parts in range(2, stones + 1):
            q, r = divmod(stones, parts)
            options.add((grundy[q + 1] if r % 2 else 0) ^ (grundy[q] if (parts - r) % 2 else 0))
        grundy[stones] = next(g for g in range(len(options) + 1) if g not in options)
    return grundy


def first_player_wins(heaps: list[int], f: int) -> bool:
    grundy = split_grundy(max(heaps), f)
    return reduce(xor, (grundy[h] for h in heaps), 0) != 0


class StoneGame(TwoWordAnswer):
    name = "StoneGame"
    words = ("Stan", "Ollie")

    def levels(self, difficulty):
        return [{"MAX_SUM": grow(5, lambda x: int(1.2 * x + 1), difficulty)}]  # 5, 7, 9, 11, 14, 17, 21, ...

    def sample(self, params, rng):
        total = params["MAX_SUM"]

        def draw():
            cuts = [i for i in range(1, total) if rng.random() < 0.5]  # a random composition of the total
            return [b - a for a, b in zip([0, *cuts], [*cuts, total])], rng.randint(1, total)

        (heaps, f), winner = self.draw_with_answer(rng, draw, lambda instance: first_player_wins(*instance))
        return {"heaps": heaps, "F": f, "reference": winner}

    def prompt(self, data):
        return (
            f"There are {len(data['heaps'])} heaps of stones with sizes {' '.join(map(str, data['heaps']))}.\n"
            "Stan and Ollie move alternately, Stan first. A move chooses a heap with at least "
            f"{data['F']} stones and an integer M >= 2 not larger than the heap size, and splits the heap into M "
            "non-empty heaps whose sizes differ by at most 1 (so the split is as even as possible). The player who "
            "cannot move loses.\n"
            "Who wins with optimal play?\n\n"
            "Output Format: a single word, `Stan` or `Ollie`."
        )
