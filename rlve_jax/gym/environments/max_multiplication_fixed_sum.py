"""MaxMultiplicationFixedSum: the largest product of positive integers that sum to N."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p5


def best_product(n: int) -> int:
    """Use threes, with a 4 (or a 2) for the remainder; valid for n >= 4."""
    threes, rest = divmod(n, 3)
    if rest == 1:
        return 4 * 3 ** (threes - 1)
    return 3**threes * (2 if rest == 2 else 1)


class MaxMultiplicationFixedSum(ExactIntegerEnvironment):
    name = "MaxMultiplicationFixedSum"
    long_answers = True  # exact answers outgrow Python's 4,300-digit int/str limit at high levels
    top_level = 19  # the largest draw of level 20 passes the output budget (tests/test_long_answers.py)

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(4, params["MAX_N"])
        return {"N": n, "reference": str(best_product(n))}

    def prompt(self, data):
        return (
            f"Split {data['N']} into a sum of positive integers (any number of parts) so that the product of "
            "the parts is as large as possible. What is that maximum product?\n\n"
            "Output Format: a single integer."
        )
