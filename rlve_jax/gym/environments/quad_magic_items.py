"""QuadMagicItems: for every item, how often it is A, B, C or D of a magic formation."""

from rlve_jax.gym.environments._common import fraction_reward, grid_text, grow_1p1, parse_int_grid
from rlve_jax.gym.env import Environment


def role_counts(values: list[int]) -> list[list[int]]:
    """Per item, the number of formations where it plays A, B, C, D.

    A formation has x_a < x_b < x_c < x_d, x_b - x_a = 2 (x_d - x_c) and x_b - x_a < (x_c - x_b) / 3;
    with t = x_d - x_c that is x_b = x_a + 2t and x_c >= x_b + 6t + 1. Counting over values with
    multiplicities is O(V^2) for values up to V.
    """
    top = max(values)
    count = [0] * (top + 1)
    for value in values:
        count[value] += 1
    as_role = [[0] * (top + 1) for _ in range(4)]
    t = 1
    while 9 * t + 1 < top:
        for xa in range(1, top + 1):
            xb = xa + 2 * t
            for xc in range(xb + 6 * t + 1, top - t + 1):
                xd = xc + t
                quad = (xa, xb, xc, xd)
                for role, value in enumerate(quad):
                    others = 1
                    for other_role, other in enumerate(quad):
                        if other_role != role:
                            others *= count[other]
                    as_role[role][value] += others
        t += 1
    return [[as_role[role][value] for role in range(4)] for value in values]


class QuadMagicItems(Environment):
    name = "QuadMagicItems"

    def levels(self, difficulty):
        return [{"N": grow_1p1(12, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        return {"values": values, "gold": role_counts(values)}

    def prompt(self, data):
        values = data["values"]
        n = len(values)
        return (
            f"There are {n} magic items numbered 1 to {n}; their magic values are: {' '.join(map(str, values))}\n"
            f"Four items a, b, c, d (in this role order) form a magic formation if their values x_a, x_b, x_c, x_d "
            f"satisfy x_a < x_b < x_c < x_d, x_b - x_a = 2 * (x_d - x_c), and x_b - x_a < (x_c - x_b) / 3.\n"
            f"For every item, count the formations in which it is item a, item b, item c and item d.\n\n"
            f"Output Format: {n} lines; line i holds four integers separated by spaces: how many times item i is "
            f"a, b, c and d respectively."
        )

    def score(self, data, answer):
        gold = data["gold"]
        rows = parse_int_grid(answer, len(gold), 4)  # N lines of 4 integers
        return fraction_reward(sum(row == expected for row, expected in zip(rows, gold)), len(gold), beta=10)

    def reference(self, problem):
        return grid_text(problem.data["gold"])
