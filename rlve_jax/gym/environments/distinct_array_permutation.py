"""DistinctArrayPermutation: permute A so that no non-empty proper index set keeps its sum."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_ints


def zero_sum_subsets(differences: list[int]) -> int:
    """Number of index subsets (the empty one included) whose differences sum to 0."""
    ways = {0: 1}
    for d in differences:
        step = dict(ways)
        for total, count in ways.items():
            step[total + d] = step.get(total + d, 0) + count
        ways = step
    return ways[0]


class DistinctArrayPermutation(Environment):
    name = "DistinctArrayPermutation"

    def levels(self, difficulty):
        return [{"N": min(3 + difficulty, 22)}]

    def sample(self, params, rng):
        n = params["N"]
        return {"N": n, "A": rng.sample(range(0, 2 * n), n)}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given an array A of {n} distinct integers: {' '.join(map(str, data['A']))}\n"
            f"Output an array B that is a permutation of A (the same values in some order) such that for "
            f"every non-empty proper subset S of the indices {{1, ..., {n}}}, the sum of A[i] over i in S "
            "differs from the sum of B[i] over i in S.\n\n"
            f"Output Format: the {n} integers B[1] ... B[{n}] on one line, separated by spaces."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if sorted(values) != sorted(data["A"]):
            return -0.5
        # The empty set and the full set always tie; any other tie breaks the rule.
        return float(zero_sum_subsets([a - b for a, b in zip(data["A"], values)]) == 2)

    def reference(self, problem):
        """Each value becomes the next larger one, the largest the smallest (a cyclic shift in sorted order).

        Any proper subset S then has sum(B) - sum(A) > 0 unless S holds the largest value, in
        which case the complement (which does not) shows sum(B) - sum(A) < 0 on S.
        """
        ordered = sorted(problem.data["A"])
        successor = {a: ordered[(i + 1) % len(ordered)] for i, a in enumerate(ordered)}
        return " ".join(str(successor[a]) for a in problem.data["A"])
