"""BoxScheduling: place items one by one at Pos = (C + D*X + Y) mod N with the smallest (Y, X) still free."""

import math

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_ints, positional_match_reward


def schedule(n: int, c: list[int], d: int, s: int) -> list[int]:
    """Item i takes the smallest Y, then the smallest X, whose slot is free and not S (Y < gcd covers all)."""
    taken = [False] * n
    taken[s] = True
    g = math.gcd(d, n)
    positions = []
    for start in c:
        slot = next(p for y in range(g) for x in range(n // g)
                    if not taken[p := (start + d * x + y) % n])
        taken[slot] = True
        positions.append(slot)
    return positions


class BoxScheduling(Environment):
    name = "BoxScheduling"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        c = [rng.randint(0, n - 1) for _ in range(n - 1)]
        d, s = rng.randint(1, n - 1), rng.randint(0, n - 1)
        return {"N": n, "C": c, "D": d, "S": s, "gold": schedule(n, c, d, s)}

    def prompt(self, data):
        n, c, d, s = data["N"], data["C"], data["D"], data["S"]
        return (
            f"There are {n} slots numbered 0 to {n - 1}; slot {s} is blocked. {n - 1} items arrive one after another, "
            f"item 0 first and item {n - 2} last, and item i has the preferred value C[i], where "
            f"C = {' '.join(map(str, c))}.\n"
            f"Item i is put into slot Pos[i] = (C[i] + {d} * X[i] + Y[i]) mod {n} for some non-negative integers "
            "X[i], Y[i], such that the slot is not blocked and not used by an earlier item. Among all such choices "
            "the item takes the one with the smallest Y[i], and among those the smallest X[i].\n"
            "Find the slots of all items.\n\n"
            f"Output Format: a single line with {n - 1} integers Pos[0] ... Pos[{n - 2}] separated by spaces."
        )

    def score(self, data, answer):
        positions = parse_ints(answer)
        n = data["N"]
        if sorted(positions) != [p for p in range(n) if p != data["S"]]:
            return INVALID
        return positional_match_reward(positions, data["gold"], beta=10)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))
