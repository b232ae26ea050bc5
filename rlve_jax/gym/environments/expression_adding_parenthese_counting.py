"""Expression_AddingParenthese_Counting (held-out): distinct values over all full parenthesizations."""

from rlve_jax.gym.environments._common import perturb_count, score_count
from rlve_jax.gym.env import Environment

OPERATIONS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def count_values(operands: list[int], operators: list[str]) -> int:
    """Interval DP over the sets of values each contiguous sub-expression can take."""
    n = len(operands)
    values = [[set() for _ in range(n)] for _ in range(n)]
    for i, x in enumerate(operands):
        values[i][i] = {x}
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            result = values[i][j]
            for k in range(i, j):  # operator k joins [i..k] and [k+1..j]
                combine = OPERATIONS[operators[k]]
                result.update(combine(a, b) for a in values[i][k] for b in values[k + 1][j])
    return len(values[0][n - 1])


class Expression_AddingParenthese_Counting(Environment):
    name = "Expression_AddingParenthese_Counting"
    perturb = perturb_count

    def levels(self, difficulty):
        return [{"num_operands": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["num_operands"]
        operands = [rng.randint(1, n * n) for _ in range(n)]
        operators = [rng.choice("+-*") for _ in range(n - 1)]
        return {"operands": operands, "operators": operators, "reference": str(count_values(operands, operators))}

    def prompt(self, data):
        expression = str(data["operands"][0]) + "".join(
            f" {op} {x}" for op, x in zip(data["operators"], data["operands"][1:]))
        return (
            f"Consider the expression: {expression}\n\n"
            "Insert parentheses so that the expression is fully parenthesized (every operator applies to exactly "
            "two sub-expressions); the order of numbers and operators may not change. Different "
            "parenthesizations can give different values. How many distinct values can be obtained?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), beta=10, positive=True)
