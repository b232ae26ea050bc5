"""MonochromeBlockCounting: colourings of the tallest one-colour-per-layer tower from A black and B white blocks."""

from rlve_jax.gym.environments._common import CountingEnvironment, grow


def tallest_tower_colourings(a: int, b: int) -> int:
    """Layers 1..h use h(h+1)/2 blocks; every black total in [0, h(h+1)/2] is a subset sum of 1..h,
    so h is the largest height with h(h+1)/2 <= a + b. Count subsets (black layers) with sum in [T-b, a]."""
    height = 0
    while (height + 1) * (height + 2) // 2 <= a + b:
        height += 1
    total = height * (height + 1) // 2
    subsets = [1] + [0] * total  # subsets[s]: sets of layers with s blocks
    for layer in range(1, height + 1):
        for s in range(total, layer - 1, -1):
            subsets[s] += subsets[s - layer]
    return sum(subsets[max(0, total - b):min(a, total) + 1])


class MonochromeBlockCounting(CountingEnvironment):
    name = "MonochromeBlockCounting"
    positive_only = True

    def levels(self, difficulty):
        return [{"MAX_A_B": grow(5, lambda x: int(1.5 * x + 1), difficulty)}]

    def sample(self, params, rng):
        a, b = rng.randint(1, params["MAX_A_B"]), rng.randint(1, params["MAX_A_B"])
        return {"A": a, "B": b, "gold": tallest_tower_colourings(a, b)}

    def prompt(self, data):
        a, b = data["A"], data["B"]
        return (
            f"You have {a} black blocks and {b} white blocks. You build a tower layer by layer: layer 1 (the top) has "
            f"1 block, layer 2 has 2 blocks, ..., layer i has i blocks, and all blocks of one layer must have the "
            f"same colour. You may use at most {a} black and at most {b} white blocks. First, the tower must be as "
            f"tall as possible. How many different towers of that maximum height can be built? Two towers differ "
            f"if some layer has a different colour.\n\n"
            "Output Format: a single integer, the number of towers."
        )
