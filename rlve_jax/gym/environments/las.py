"""LAS (POI 2014, Lasuchy): people on a cycle each eat one of their two neighbouring dishes; find a Nash equilibrium."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_exact_ints
from rlve_jax.gym.env import Environment


def is_stable(calories: list[int], left: int, mine: int, right: int, i: int) -> bool:
    """Person i chooses food i (mine=0) or i+1 (mine=1); left/right are the neighbours' choices (same coding)."""
    n = len(calories)
    here, there = (i, (i + 1) % n) if mine == 0 else ((i + 1) % n, i)
    sharing_here = 1 + (left == 1 if mine == 0 else right == 0)
    sharing_there = 1 + (right == 0 if mine == 0 else left == 1)
    return calories[there] * sharing_here <= calories[here] * sharing_there  # switching gains nothing


def find_equilibrium(calories: list[int]) -> list[int]:
    """Stability of person i depends on choices i-1, i, i+1: a DP over the cycle with the first two choices fixed."""
    n = len(calories)
    for first in ((0, 0), (0, 1), (1, 0), (1, 1)):
        layers = [{first: None}]  # layer i maps (choice i, choice i+1) -> the previous pair
        for i in range(1, n - 1):
            layer = {}
            for (a, b) in layers[-1]:
                for c in (0, 1):
                    if (b, c) not in layer and is_stable(calories, a, b, c, i):
                        layer[b, c] = (a, b)
            layers.append(layer)
        for state in layers[-1]:
            pair, choices = state, list(state)
            for layer in reversed(layers[1:]):
                pair = layer[pair]
                choices.insert(0, pair[0])
            if is_stable(calories, choices[-2], choices[-1], choices[0], n - 1) and \
                    is_stable(calories, choices[-1], choices[0], choices[1], 0):
                return choices
    raise AssertionError("a pure equilibrium always exists (potential game)")


class LAS(Environment):
    name = "LAS"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        calories = [rng.randint(1, 2 * n) for _ in range(n)]
        choices = find_equilibrium(calories)
        return {"calories": calories, "reference": " ".join(str((i + b) % n + 1) for i, b in enumerate(choices))}

    def prompt(self, data):
        calories = data["calories"]
        n = len(calories)
        return (
            f"{n} people sit around a round table, and {n} dishes stand between them. Person i (1 <= i <= {n}) sits "
            f"between dish i and dish i+1 (person {n} between dish {n} and dish 1) and eats exactly one of these two "
            "dishes. Dish j has C[j] calories; if two people eat the same dish, each gets half of its calories. "
            f"C[1..{n}] = {' '.join(map(str, calories))}\n\n"
            "Choose a dish for every person so that nobody could get strictly more calories by switching to the "
            "other dish next to them (while everyone else keeps their choice).\n\n"
            f"Output Format: a single line with {n} integers separated by spaces: the dish eaten by person 1, 2, ..., "
            f"{n}."
        )

    def score(self, data, answer):
        calories = data["calories"]
        n = len(calories)
        dishes = parse_exact_ints(answer, n)
        choices = []
        for i, dish in enumerate(dishes):
            if dish not in (i + 1, (i + 1) % n + 1):
                return INVALID
            choices.append(0 if dish == i + 1 else 1)
        stable = sum(is_stable(calories, choices[i - 1], choices[i], choices[(i + 1) % n], i) for i in range(n))
        return fraction_reward(stable, n, beta=10)

    def perturb(self, problem, answer):
        return answer.rsplit(" ", 1)[0] + " 2"  # person N may only eat dish N or dish 1
