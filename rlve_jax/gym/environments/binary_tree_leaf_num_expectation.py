"""BinaryTreeLeafNumExpectation: expected leaves of a uniformly random binary tree, as a fraction."""

from fractions import Fraction

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p5, parse_int


def expected_leaves(n: int) -> Fraction:
    """n(n+1) / (2(2n-1)): leaf count summed over all Catalan(n) trees is n * Catalan(n-1)."""
    return Fraction(n * (n + 1), 2 * (2 * n - 1))


def parse_fraction(text: str) -> Fraction:
    """'A/B' with positive integers A and B; anything else is a format error."""
    parts = text.split("/")
    if len(parts) != 2:
        raise FormatError("expected A/B")
    numerator, denominator = parse_int(parts[0]), parse_int(parts[1])
    if numerator <= 0 or denominator <= 0:
        raise FormatError("A and B must be positive")
    return Fraction(numerator, denominator)


class BinaryTreeLeafNumExpectation(Environment):
    name = "BinaryTreeLeafNumExpectation"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(1, params["MAX_N"])
        gold = expected_leaves(n)
        return {"N": n, "reference": f"{gold.numerator}/{gold.denominator}"}

    def prompt(self, data):
        n = data["N"]
        return (
            f"A binary tree with {n} nodes is chosen uniformly at random among all distinct binary trees "
            f"with {n} nodes (every node has an optional left child and an optional right child; left and "
            "right are distinguished, so two trees differ if their shapes differ). A leaf is a node with "
            "no children.\n"
            "What is the expected number of leaves of the chosen tree?\n\n"
            "Output Format: the expected value as a fraction A/B with positive integers A and B, "
            "e.g. `7/3` (write an integer value as, e.g., `2/1`)."
        )

    def score(self, data, answer):
        return float(parse_fraction(answer) == expected_leaves(data["N"]))
