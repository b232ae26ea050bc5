"""PCPPermutation (C16): order string pairs so that the two concatenations are equal."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import fraction_reward, parse_ints

AVERAGE_LENGTHS = (1.2, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 7.0, 10.0)


def cut(text: str, pieces: int, rng) -> list[str]:
    """Split text into `pieces` non-empty consecutive parts at random cut points."""
    cuts = sorted(rng.sample(range(1, len(text)), pieces - 1))
    return [text[i:j] for i, j in zip([0] + cuts, cuts + [len(text)])]


class PCPPermutation(Environment):
    name = "PCPPermutation"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty, "average_length": length} for length in AVERAGE_LENGTHS]

    def sample(self, params, rng):
        n = params["N"]
        length = max(n, round(n * params["average_length"]))
        text = "".join(rng.choice("ab") for _ in range(length))
        a_parts, b_parts = cut(text, n, rng), cut(text, n, rng)
        order = rng.sample(range(n), n)  # pair order[k] holds the k-th pieces of both cuts
        pairs = [None] * n
        for k, index in enumerate(order):
            pairs[index] = [a_parts[k], b_parts[k]]
        return {"pairs": pairs, "reference": " ".join(map(str, order))}

    def prompt(self, data):
        n = len(data["pairs"])
        listing = "\n".join(f"A[{i}] = {a}    B[{i}] = {b}" for i, (a, b) in enumerate(data["pairs"]))
        return (
            f"You are given {n} pairs of strings (A[i], B[i]) for i = 0 to {n - 1}:\n{listing}\n\n"
            f"Find a permutation p[0], p[1], ..., p[{n - 1}] of the indices 0 to {n - 1} such that "
            f"A[p[0]] + A[p[1]] + ... + A[p[{n - 1}]] equals B[p[0]] + B[p[1]] + ... + B[p[{n - 1}]] "
            "(+ is string concatenation).\n\n"
            f"Output Format: a single line with the {n} indices p[0] ... p[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        order = parse_ints(answer)
        pairs = data["pairs"]
        if sorted(order) != list(range(len(pairs))):
            return -0.5
        a = "".join(pairs[i][0] for i in order)
        b = "".join(pairs[i][1] for i in order)
        return fraction_reward(sum(x == y for x, y in zip(a, b)), len(a), beta=10)

    def perturb(self, problem, answer):
        return answer + " 0"  # not a permutation any more
