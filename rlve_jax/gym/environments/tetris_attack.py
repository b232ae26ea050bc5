"""TetrisAttack: each value appears twice; equal neighbours vanish; clear the row with the fewest swaps."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_ints


UNSUCCESSFUL = -0.2  # legal swaps that leave something on the row


def settle(row: list[int], p: int) -> None:
    """Remove the equal pair (p-1, p) if there is one, then the pairs its closing gap brings together."""
    while 0 < p < len(row) and row[p - 1] == row[p]:
        del row[p - 1:p + 1]
        p -= 1


def swap(row: list[int], i: int) -> None:
    """Swap positions i and i+1 in place; only the pairs (i+1, i+2) and (i-1, i) can have become equal."""
    row[i], row[i + 1] = row[i + 1], row[i]
    settle(row, i + 2)
    settle(row, i)


def first_second_occurrence(row: list[int]) -> int:
    """Position of the first value whose partner lies to its left."""
    seen = set()
    for position, v in enumerate(row):
        if v in seen:
            return position
        seen.add(v)
    raise ValueError("every value should appear twice")


def greedy_swaps(row: list[int]) -> list[int]:
    """Move the first value whose partner lies to its left one step towards it, until the row is empty."""
    row, swaps = list(row), []
    while row:
        closing = first_second_occurrence(row)
        swaps.append(closing - 1)
        swap(row, closing - 1)
    return swaps


class TetrisAttack(Environment):
    name = "TetrisAttack"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        row = [v for v in range(1, params["N"] + 1) for _ in range(2)]
        while True:
            rng.shuffle(row)
            if all(a != b for a, b in zip(row, row[1:])):  # no pair starts out adjacent
                return {"row": row, "best": len(greedy_swaps(row))}

    def prompt(self, data):
        return (
            f"You are given a row of {len(data['row'])} numbers (positions indexed from 0); every value appears "
            f"exactly twice:\n{' '.join(map(str, data['row']))}\n"
            "An operation `i` swaps the numbers at positions i and i+1 of the current row. Whenever two equal "
            "numbers become adjacent they both vanish and the row closes the gap (positions are re-indexed from 0); "
            "this may make other equal numbers adjacent, which vanish too. Empty the row with as few swaps as "
            "possible.\n\n"
            "Output Format: a single line with the swap positions i in the order performed, separated by spaces."
        )

    def score(self, data, answer):
        row, swaps = list(data["row"]), parse_ints(answer)
        for i in swaps:
            if not 0 <= i < len(row) - 1:
                return INVALID
            swap(row, i)
        if row:
            return UNSUCCESSFUL
        return fraction_reward(data["best"], len(swaps), 5)

    def reference(self, problem):
        return " ".join(map(str, greedy_swaps(problem.data["row"])))

    def perturb(self, problem, answer):
        return answer + " 0"  # a swap after the row is already empty
