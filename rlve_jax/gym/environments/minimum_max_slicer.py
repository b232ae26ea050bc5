"""Minimum_MaxSlicer: split an array into M consecutive batches so that the largest batch sum is minimal."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward
from rlve_jax.gym.environments._segmentation import batch_sums, ends_text, min_max_split, parse_batch_ends
from rlve_jax.gym.env import Environment


class Minimum_MaxSlicer(Environment):
    name = "Minimum_MaxSlicer"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        batches = rng.randint(3, max(3, n // 2))
        values = [rng.randint(1, n) for _ in range(n)]
        best, ends = min_max_split(values, batches)
        return {"A": values, "M": batches, "optimum": best, "reference": ends_text(ends, base=0)}

    def prompt(self, data):
        n, m = len(data["A"]), data["M"]
        values = " ".join(f"A[{i}]={v}" for i, v in enumerate(data["A"]))
        return (
            f"You are given an array of {n} positive integers (0-indexed): {values}\n\n"
            f"Split the array into exactly {m} non-empty batches of consecutive elements so that the largest batch "
            "sum is as small as possible.\n\n"
            f"Output Format: a single line with {m} integers separated by spaces: the index of the last element of "
            f"each batch, in increasing order (the last one must be {n - 1}). For example, `1 3 9` would split a "
            "10-element array into the 3 batches A[0..1], A[2..3] and A[4..9]."
        )

    def score(self, data, answer):
        ends = parse_batch_ends(answer, len(data["A"]), base=0)
        if ends is None or len(ends) != data["M"]:
            return INVALID
        return minimization_reward(data["optimum"], max(batch_sums(data["A"], ends)), beta=3)
