"""SlidingWindow: the minimum of every contiguous window of size K."""

from rlve_jax.gym.environments._common import grow_1p1, score_sequence
from rlve_jax.gym.env import Environment


class SlidingWindow(Environment):
    name = "SlidingWindow"

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(0, n) for _ in range(n)]
        k = rng.randint(2, n - 1)
        return {"A": values, "K": k, "gold": [min(values[i:i + k]) for i in range(n - k + 1)]}

    def prompt(self, data):
        n, k = len(data["A"]), data["K"]
        return (
            f"You are given an array of {n} integers: {' '.join(map(str, data['A']))}\n"
            f"For each of the {n - k + 1} contiguous windows of size {k} (from left to right), give the minimum of "
            "the window.\n\n"
            f"Output Format: a single line with {n - k + 1} integers separated by spaces."
        )

    def score(self, data, answer):
        return score_sequence(answer, data["gold"], 10)

    def reference(self, problem):
        return " ".join(map(str, problem.data["gold"]))
