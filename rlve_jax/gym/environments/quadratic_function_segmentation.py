"""QuadraticFunctionSegmentation: split an array into consecutive batches maximizing the sum of
f(batch sum) for a concave quadratic f (APIO 2010 "Commando")."""

import random
from itertools import accumulate
from math import prod

from rlve_jax.gym.environments._common import INVALID, grow_1p1, maximization_reward
from rlve_jax.gym.environments._segmentation import batch_sums, ends_text, optimal_segmentation, parse_batch_ends
from rlve_jax.gym.env import Environment, FormatError


def total_value(sums: list[int], a: int, b: int, c: int) -> int:
    return sum(a * x * x + b * x + c for x in sums)


def random_product(rng: random.Random, n: int, factors: int) -> int:
    """The product of `factors` independent U[1, n] draws."""
    return prod(rng.randint(1, n) for _ in range(factors))


class QuadraticFunctionSegmentation(Environment):
    name = "QuadraticFunctionSegmentation"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        """The original's draws: A = -U[1, N], B = U[1, product of 3 U[1, N]], C = U[-P, P'] with P, P' products
        of 5 U[1, N]; redrawn unless the optimum is positive and strictly beats all singletons, one batch and
        every split into two batches (so no trivial split is the answer)."""
        n = params["N"]
        while True:
            values = [rng.randint(1, n) for _ in range(n)]
            a = -rng.randint(1, n)
            b = rng.randint(1, random_product(rng, n, 3))
            c = rng.randint(-random_product(rng, n, 5), random_product(rng, n, 5))
            prefix = list(accumulate(values, initial=0))
            best, ends = optimal_segmentation(n, lambda j, i: total_value([prefix[i] - prefix[j]], a, b, c),
                                              maximize=True)
            trivial = [total_value(values, a, b, c)] + [
                total_value([prefix[k], prefix[n] - prefix[k]] if k else [prefix[n]], a, b, c) for k in range(n)]
            if best > 0 and best > max(trivial):
                break
        return {"A": values, "a": a, "b": b, "c": c, "optimum": best, "reference": ends_text(ends)}

    def prompt(self, data):
        n = len(data["A"])
        values = " ".join(f"A[{i + 1}]={v}" for i, v in enumerate(data["A"]))
        constant = f"- {-data['c']}" if data["c"] < 0 else f"+ {data['c']}"
        return (
            f"You are given an array of {n} positive integers (1-indexed): {values}\n"
            f"and the function f(x) = {data['a']}*x^2 + {data['b']}*x {constant}.\n\n"
            "Split the array into one or more non-empty batches of consecutive elements. Each batch with sum x "
            "contributes f(x). Maximize the total contribution of all batches.\n\n"
            "Output Format: a single line with the end index of each batch, in increasing order and separated by "
            f"spaces; the last one must be {n}. For example, `2 {n}` means the batches A[1..2] and A[3..{n}]."
        )

    def score(self, data, answer):
        if not answer.strip():
            raise FormatError("empty answer")  # the original: an empty answer is a format error (-1)
        ends = parse_batch_ends(answer, len(data["A"]))
        if ends is None:
            return INVALID
        value = total_value(batch_sums(data["A"], ends), data["a"], data["b"], data["c"])
        return maximization_reward(value, data["optimum"], beta=5)
