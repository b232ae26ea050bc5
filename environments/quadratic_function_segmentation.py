"""QuadraticFunctionSegmentation: split an array into consecutive batches maximizing the sum of
f(batch sum) for a concave quadratic f (APIO 2010 "Commando")."""

from itertools import accumulate

from environments._common import maximization_reward
from environments._segmentation import batch_sums, ends_text, optimal_segmentation, parse_batch_ends
from rlve_jax.env import INVALID, Environment, grow_1p1


def total_value(sums: list[int], a: int, b: int, c: int) -> int:
    return sum(a * x * x + b * x + c for x in sums)


class QuadraticFunctionSegmentation(Environment):
    name = "QuadraticFunctionSegmentation"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        prefix = list(accumulate(values, initial=0))
        while True:  # f peaks at a random reachable batch sum; redraw until some split has a positive value
            a = -rng.randint(1, n)
            peak = rng.randint(1, prefix[-1])
            b = 2 * -a * peak
            c = rng.randint(a * peak * peak, -a * peak * peak)
            best, ends = optimal_segmentation(n, lambda j, i: total_value([prefix[i] - prefix[j]], a, b, c),
                                              maximize=True)
            if best > 0:
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
        ends = parse_batch_ends(answer, len(data["A"]))
        if ends is None:
            return INVALID
        value = total_value(batch_sums(data["A"], ends), data["a"], data["b"], data["c"])
        return maximization_reward(value, data["optimum"], beta=5)
