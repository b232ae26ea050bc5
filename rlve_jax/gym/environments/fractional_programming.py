"""FractionalProgramming: choose exactly K of N items maximizing (sum of A) / (sum of B)."""

from fractions import Fraction

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, grow_1p1, maximization_reward, parse_distinct_indices,
)


def best_ratio_subset(a: list[int], b: list[int], k: int) -> list[int]:
    """Dinkelbach's method in exact arithmetic: the best K items for sum(A - lambda*B) give a better ratio
    unless lambda is already optimal."""
    chosen = sorted(range(len(a)), key=lambda i: Fraction(a[i], b[i]), reverse=True)[:k]
    while True:
        ratio = Fraction(sum(a[i] for i in chosen), sum(b[i] for i in chosen))
        better = sorted(range(len(a)), key=lambda i: a[i] - ratio * b[i], reverse=True)[:k]
        if sum(a[i] - ratio * b[i] for i in better) <= 0:
            return sorted(chosen)
        chosen = better


class FractionalProgramming(DropLastTokenPerturbation):
    name = "FractionalProgramming"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(2, n - 1)
        b = [rng.randint(1, n) for _ in range(n)]
        a = [rng.randint(1, 2 * bi) for bi in b]
        chosen = best_ratio_subset(a, b, k)
        optimum = Fraction(sum(a[i] for i in chosen), sum(b[i] for i in chosen))
        return {"A": a, "B": b, "K": k, "optimum": [optimum.numerator, optimum.denominator],
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        a, b, k = data["A"], data["B"], data["K"]
        n = len(a)
        return (
            f"You are given two arrays A and B of {n} positive integers each (indices 0 to {n - 1}):\n"
            f"A: {' '.join(map(str, a))}\nB: {' '.join(map(str, b))}\n"
            f"Choose exactly {k} distinct indices i_1, ..., i_{k} to maximize "
            f"(A[i_1] + ... + A[i_{k}]) / (B[i_1] + ... + B[i_{k}]).\n\n"
            f"Output Format: a single line with the {k} chosen indices separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_distinct_indices(answer, len(data["A"]))
        if chosen is None or len(chosen) != data["K"]:
            return -0.5
        ratio = Fraction(sum(data["A"][i] for i in chosen), sum(data["B"][i] for i in chosen))
        return maximization_reward(ratio, Fraction(*data["optimum"]), beta=5)
