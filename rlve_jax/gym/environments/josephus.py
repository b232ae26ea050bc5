"""Josephus: the elimination order of N people in a circle counting off by M."""

from rlve_jax.gym.environments._common import PermutationAnswer, grow_1p1


def elimination_order(n: int, m: int) -> list[int]:
    people, order, position = list(range(1, n + 1)), [], 0
    while people:
        position = (position + m - 1) % len(people)
        order.append(people.pop(position))
    return order


class Josephus(PermutationAnswer):
    name = "Josephus"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        m = rng.randint(2, n)
        return {"N": n, "M": m, "gold": elimination_order(n, m)}

    def prompt(self, data):
        return (
            f"{data['N']} people numbered 1 to {data['N']} stand in a circle. Starting from person 1, they count "
            f"off 1, 2, ..., {data['M']} around the circle; the person who says {data['M']} leaves the circle, and "
            "counting restarts at 1 from the next remaining person. This repeats until everyone has left.\n"
            "List the people in the order in which they leave.\n\n"
            f"Output Format: a single line with {data['N']} integers separated by spaces."
        )
