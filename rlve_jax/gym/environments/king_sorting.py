"""KingSorting (NOIP "King's game"): line up ministers behind the king so that the largest reward,
(product of the left-hand numbers in front) // (own right-hand number), is as small as possible."""

from rlve_jax.gym.environments._common import grow_1p1, minimization_reward, parse_permutation
from rlve_jax.gym.env import Environment


def largest_reward(king_left: int, pairs: list[list[int]], order: list[int]) -> int:
    product, largest = king_left, 0
    for i in order:
        left, right = pairs[i]
        largest = max(largest, product // right)
        product *= left
    return largest


class KingSorting(Environment):
    name = "KingSorting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        king = [rng.randint(1, 10), rng.randint(1, 10)]
        pairs = [[rng.randint(1, 10), rng.randint(1, 10)] for _ in range(n)]
        order = sorted(range(n), key=lambda i: pairs[i][0] * pairs[i][1])  # exchange argument: by a*b
        return {"king": king, "pairs": pairs, "optimum": largest_reward(king[0], pairs, order),
                "reference": " ".join(str(i + 1) for i in order)}

    def prompt(self, data):
        (king_a, king_b), pairs = data["king"], data["pairs"]
        n = len(pairs)
        return (
            f"A king and {n} ministers each write one integer on their left hand and one on their right hand. "
            f"The king has ({king_a}, {king_b}); the ministers, numbered 1 to {n}, have:\n"
            + "\n".join(f"minister {i + 1}: ({a}, {b})" for i, (a, b) in enumerate(pairs))
            + "\nThe king always stands at the front of a line; the ministers stand behind him in an order you "
            "choose. Each minister receives a reward equal to the product of the left-hand numbers of everyone "
            "in front of him (the king included), divided by his own right-hand number and rounded down. "
            "Order the ministers to minimize the largest reward received by any minister.\n\n"
            f"Output Format: a single line with a permutation of 1..{n}: the ministers from front to back, "
            "separated by spaces."
        )

    def score(self, data, answer):
        order = parse_permutation(answer, len(data["pairs"]), base=1)
        if order is None:
            return -0.5
        return minimization_reward(data["optimum"], largest_reward(data["king"][0], data["pairs"], order), beta=5)
