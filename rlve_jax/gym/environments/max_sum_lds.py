"""MaxSumLDS (TJOI 2014 "Alice and Bob"): given, for every position, the length of the longest
increasing subsequence ending there, find a permutation with these lengths that maximizes the sum of
the lengths of the longest decreasing subsequences starting at each position."""

from rlve_jax.gym.environments._common import grow_1p1, maximization_reward, parse_permutation
from rlve_jax.gym.env import Environment


def lis_ending(values: list[int]) -> list[int]:
    lengths: list[int] = []
    for i, v in enumerate(values):
        lengths.append(1 + max((lengths[j] for j in range(i) if values[j] < v), default=0))
    return lengths


def lds_starting(values: list[int]) -> list[int]:
    return lis_ending(values[::-1])[::-1]  # decreasing to the right = increasing read right to left


def best_permutation(lis: list[int]) -> list[int]:
    """Exact construction: hang each position under the last earlier position whose length is one less
    (the virtual root for length 1) and number the tree in preorder, later children first. Parents get
    smaller values than their subtrees (the increasing lengths hold) and everything else is as decreasing
    as possible, which makes every decreasing run as long as it can be."""
    n = len(lis)
    children: list[list[int]] = [[] for _ in range(n + 1)]  # node n is the virtual root
    last_with_length: dict[int, int] = {0: n}
    for i, length in enumerate(lis):
        children[last_with_length[length - 1]].append(i)
        last_with_length[length] = i
    values, stack, counter = [0] * n, [n], 0
    while stack:
        node = stack.pop()
        if node < n:
            counter += 1
            values[node] = counter
        stack += children[node]  # popped last-first: the latest child is numbered first
    return values


class MaxSumLDS(Environment):
    name = "MaxSumLDS"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        lis = lis_ending(rng.sample(range(1, n + 1), n))
        values = best_permutation(lis)
        return {"A": lis, "optimum": sum(lds_starting(values)), "reference": " ".join(map(str, values))}

    def prompt(self, data):
        lis = data["A"]
        n = len(lis)
        return (
            f"For a permutation P[1], ..., P[{n}] of 1..{n}, let A[i] be the length of the longest increasing "
            "subsequence that ends at position i, and B[i] the length of the longest decreasing subsequence that "
            f"starts at position i. You are given A:\n{' '.join(map(str, lis))}\n"
            f"Find a permutation with exactly this array A that maximizes B[1] + B[2] + ... + B[{n}].\n\n"
            f"Output Format: a single line with P[1] P[2] ... P[{n}] separated by spaces."
        )

    def score(self, data, answer):
        order = parse_permutation(answer, len(data["A"]), base=1)
        if order is None:
            return -0.5
        if lis_ending(order) != data["A"]:
            return -0.2
        return maximization_reward(sum(lds_starting(order)), data["optimum"], beta=5)
