"""KloBlocks: move single blocks off columns taller than K; longest run of columns all at least K."""

from itertools import accumulate

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def longest_reachable_run(heights: list[int], k: int) -> int:
    """A run can be raised to >= K exactly when its average is >= K: the longest segment with sum(h - K) >= 0."""
    prefix = [0, *accumulate(h - k for h in heights)]
    n = len(heights)
    return max((r - l for l in range(n) for r in range(l + 1, n + 1) if prefix[r] >= prefix[l]), default=0)


class KloBlocks(ExactIntegerEnvironment):
    name = "KloBlocks"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            heights = [rng.randint(1, 2 * n) for _ in range(n)]
            if max(heights) - min(heights) >= 2:
                break
        k = rng.randint(min(heights) + 1, max(heights) - 1)
        return {"A": heights, "K": k, "reference": str(longest_reachable_run(heights, k))}

    def prompt(self, data):
        return (
            f"There are {len(data['A'])} columns of blocks in a row with heights {' '.join(map(str, data['A']))}.\n"
            f"In one move you may take a single block from a column whose height is greater than {data['K']} and "
            "put it on one of its two neighbouring columns. You may make any number of moves.\n"
            f"What is the largest number of consecutive columns that can all have height at least {data['K']} "
            "at the same time?\n\n"
            "Output Format: a single integer."
        )
