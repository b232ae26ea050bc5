"""RepeatSequenceLNDS: the longest non-decreasing subsequence of a pattern repeated T times."""

from bisect import bisect_right

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p5


def longest_non_decreasing(values: list[int]) -> int:
    """Patience sorting with bisect_right (ties may extend a run)."""
    tails: list[int] = []
    for v in values:
        i = bisect_right(tails, v)
        tails[i:i + 1] = [v]
    return len(tails)


class RepeatSequenceLNDS(ExactIntegerEnvironment):
    name = "RepeatSequenceLNDS"

    def levels(self, difficulty):
        return [{"n": 3 + difficulty, "MAX_T": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n = params["n"]
        pattern = [rng.randint(1, n) for _ in range(n)]
        repeats = rng.randint(2, params["MAX_T"])
        return {"pattern": pattern, "T": repeats, "reference": str(longest_non_decreasing(pattern * repeats))}

    def prompt(self, data):
        return (
            f"Let a be the sequence {' '.join(map(str, data['pattern']))} (length {len(data['pattern'])}). "
            f"The sequence b is a repeated {data['T']} times in a row (length "
            f"{len(data['pattern']) * data['T']}).\n"
            "What is the length of the longest non-decreasing subsequence of b?\n\n"
            "Output Format: a single integer."
        )
