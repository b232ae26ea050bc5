"""Sorting (C4, C16): sort a list of integers ascending."""

from rlve_jax.gym.environments._common import IntListEnvironment, grow_1p1


class Sorting(IntListEnvironment):  # score: wrong length -0.5, else (matching positions)^10
    name = "Sorting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]  # 3,4,5,6,7,8,9,10,12,14,...

    def sample(self, params, rng):
        n = params["N"]
        array = [rng.randint(0, 5 * n) for _ in range(n)]
        return {"array": array, "gold": sorted(array)}

    def prompt(self, data):
        return (
            "You are given the following list of numbers:\n"
            f"{' '.join(map(str, data['array']))}\n"
            "Please sort them in ascending order.\n\n"
            "Output Format: a single line with the sorted numbers separated by single spaces, "
            "e.g. `1 2 3 4 5` (without quotes or backticks)."
        )
