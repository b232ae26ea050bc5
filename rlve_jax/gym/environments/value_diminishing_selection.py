"""ValueDiminishingSelection: pick an ordered sequence of distinct items; each picked item is worth its W
minus the R values of the items picked before it. Maximize the total."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, maximization_reward, parse_ints, repeat_first_token
from rlve_jax.gym.env import Environment


def total_gain(sequence: list[int], worth: list[int], decay: list[int]) -> int:
    total = lost = 0
    for item in sequence:
        total += worth[item] - lost
        lost += decay[item]
    return total


def best_sequence(worth: list[int], decay: list[int]) -> list[int]:
    """An item's R is paid once by every item after it, so a chosen set is best ordered by R ascending.
    Building that order from the back (R descending), prepending an item in front of m chosen ones adds
    W - R x m: a knapsack over the count m."""
    order = sorted(range(len(worth)), key=lambda item: (-decay[item], item))
    impossible = float("-inf")
    best = [0] + [impossible] * len(order)  # best[m]: best total of m items from those seen so far
    history = []
    for item in order:
        taken = [False] * (len(order) + 1)
        for m in range(len(order) - 1, -1, -1):
            if best[m] > impossible and best[m] + worth[item] - decay[item] * m > best[m + 1]:
                best[m + 1], taken[m + 1] = best[m] + worth[item] - decay[item] * m, True
        history.append(taken)
    count = max(range(len(best)), key=lambda m: (best[m], -m))  # the fewest items among the optima
    sequence = []
    for item, taken in zip(reversed(order), reversed(history)):
        if taken[count]:
            sequence.append(item)
            count -= 1
    return sequence


class ValueDiminishingSelection(Environment):
    name = "ValueDiminishingSelection"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        worth = [rng.randint(0, n * n // 2) for _ in range(n)]
        decay = [rng.randint(1, n) for _ in range(n)]
        sequence = best_sequence(worth, decay)
        return {"W": worth, "R": decay, "optimum": total_gain(sequence, worth, decay),
                "reference": " ".join(map(str, sequence))}

    def prompt(self, data):
        n = len(data["W"])
        items = "\n".join(f"Item {i}: W={w}, R={r}" for i, (w, r) in enumerate(zip(data["W"], data["R"])))
        return (
            f"There are {n} items, numbered 0 to {n - 1}:\n{items}\n\n"
            "Choose some distinct items and an order in which to take them. When you take an item, you gain its W "
            "minus the sum of the R values of all items taken before it (this gain may be negative). Maximize the "
            "total gain.\n\n"
            "Output Format: a single line with the chosen item numbers in the order you take them, separated by "
            "spaces."
        )

    def score(self, data, answer):
        sequence = parse_ints(answer)
        n = len(data["W"])
        if any(not 0 <= item < n for item in sequence) or len(set(sequence)) != len(sequence):
            return INVALID
        if data["optimum"] == 0:
            return 1.0
        return maximization_reward(total_gain(sequence, data["W"], data["R"]), data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return repeat_first_token(answer, fallback="0 0")
