"""ClearSymmetry: the smallest n with a clear, doubly symmetric n x n 0/1 matrix holding exactly x ones."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p5


def smallest_side(x: int) -> int:
    """Even sides allow no ones (the middle rows mirror onto each other); an odd side n reaches
    every count up to (n^2 + 1) / 2, except that 3 ones need n = 5 (checked by brute force in tests)."""
    if x == 3:
        return 5
    n = 1
    while (n * n + 1) // 2 < x:
        n += 2
    return n


class ClearSymmetry(ExactIntegerEnvironment):
    name = "ClearSymmetry"

    def levels(self, difficulty):
        return [{"MAX_X": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        x = rng.randint(1, params["MAX_X"])
        return {"X": x, "reference": str(smallest_side(x))}

    def prompt(self, data):
        return (
            "Consider an n x n matrix A whose entries are 0 or 1. A is called clear if no two cells containing 1 "
            "share a side. A is called symmetrical if it is unchanged when its rows are reversed (reflection in "
            "the horizontal axis) and also unchanged when its columns are reversed (reflection in the vertical axis). "
            "The sharpness of A is the number of ones in it.\n"
            f"Find the smallest positive integer n such that there exists a clear symmetrical n x n matrix "
            f"with sharpness exactly {data['X']}.\n\n"
            "Output Format: a single integer n."
        )
