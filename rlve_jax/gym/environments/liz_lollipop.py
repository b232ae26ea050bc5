"""LIZ_Lollipop: in an array of 1s and 2s, a subarray with each sum 1..S (or -1 -1 when none exists)."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_pair_lines
from rlve_jax.gym.env import Environment


def interval_for_each_sum(values: list[int]) -> list[list[int]]:
    """For x = 1..S, some 1-based [l, r] with that sum, or [-1, -1]."""
    found = {}
    for l in range(len(values)):
        total = 0
        for r in range(l, len(values)):
            total += values[r]
            found.setdefault(total, [l + 1, r + 1])
    return [found.get(x, [-1, -1]) for x in range(1, sum(values) + 1)]


class LIZ_Lollipop(Environment):
    name = "LIZ_Lollipop"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        share_of_twos = rng.random()
        values = [2 if rng.random() < share_of_twos else 1 for _ in range(params["N"])]
        return {"A": values, "gold": interval_for_each_sum(values)}

    def prompt(self, data):
        values = data["A"]
        total = sum(values)
        return (
            f"You are given an array A of length {len(values)} (indexed from 1) whose entries are 1 or 2:\n"
            f"{' '.join(map(str, values))}\n"
            f"The total sum is S = {total}. For every x = 1, 2, ..., {total}, find indices l <= r such that "
            "A[l] + A[l+1] + ... + A[r] = x, or report that no such pair exists.\n\n"
            f"Output Format: {total} lines; line x contains `l r` for the sum x (any valid pair is accepted), "
            "or `-1 -1` if no subarray has sum x."
        )

    def score(self, data, answer):
        values, gold = data["A"], data["gold"]
        pairs = parse_pair_lines(answer)
        if len(pairs) != len(gold):
            return INVALID
        correct = 0
        for x, ((l, r), expected) in enumerate(zip(pairs, gold), start=1):
            if (l, r) == (-1, -1):
                correct += expected == [-1, -1]
            elif not 1 <= l <= r <= len(values):
                return INVALID
            else:
                correct += sum(values[l - 1:r]) == x
        return fraction_reward(correct, len(gold), 5)

    def reference(self, problem):
        return "\n".join(f"{l} {r}" for l, r in problem.data["gold"])
