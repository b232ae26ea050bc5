"""SmallestBinaryMultiple (held-out): the smallest B > 0 such that A * B has only digits 0 and 1."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward, parse_int
from rlve_jax.gym.env import Environment


def smallest_binary_multiple(a: int) -> int:
    """BFS over remainders mod a, appending 0 before 1: the first number reaching remainder 0 is the smallest."""
    parent: dict[int, tuple[int, str]] = {1 % a: (-1, "1")}
    frontier = [1 % a]
    for r in frontier:
        if r == 0:
            break
        for digit in "01":
            nxt = (r * 10 + int(digit)) % a
            if nxt not in parent:
                parent[nxt] = (r, digit)
                frontier.append(nxt)
    digits, r = [], 0
    while r != -1:
        r, digit = parent[r]
        digits.append(digit)
    return int("".join(reversed(digits)))


class SmallestBinaryMultiple(Environment):
    name = "SmallestBinaryMultiple"
    long_answers = True  # exact answers outgrow Python's 4,300-digit int/str limit at high levels

    def levels(self, difficulty):
        return [{"MAX_A": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        a = rng.randint(2, params["MAX_A"])
        return {"A": a, "reference": str(smallest_binary_multiple(a) // a)}

    def prompt(self, data):
        return (
            f"Find the smallest positive integer B such that the product {data['A']} * B, written in decimal, "
            "contains only the digits 0 and 1.\n\n"
            "Output Format: a single integer B."
        )

    def score(self, data, answer):
        b = parse_int(answer)
        if b <= 0:
            return -1.0
        if set(str(data["A"] * b)) - {"0", "1"}:
            return INVALID
        return minimization_reward(int(data["reference"]), b, beta=5)
