"""Circuit: satisfy a random Boolean formula over &, |, ^ built around a planted assignment."""

import random

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, parse_ints, sweep


CHILD_VALUES = {  # (op, wanted value) -> child values that produce it
    ("&", 1): [(1, 1)], ("&", 0): [(0, 0), (0, 1), (1, 0)],
    ("|", 1): [(1, 1), (1, 0), (0, 1)], ("|", 0): [(0, 0)],
    ("^", 1): [(0, 1), (1, 0)], ("^", 0): [(0, 0), (1, 1)],
}
APPLY = {"&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}


def planted_formula(rng: random.Random, leaves: int, want: int, assignment: list[int]) -> list:
    """Postfix tokens (variable ints and operator strings) of a formula with `leaves` leaves worth `want`."""
    if leaves == 1:
        return [rng.choice([v for v, value in enumerate(assignment) if value == want])]
    op = rng.choice("&|^")
    left_want, right_want = rng.choice(CHILD_VALUES[op, want])
    split = rng.randint(1, leaves - 1)
    return (planted_formula(rng, split, left_want, assignment)
            + planted_formula(rng, leaves - split, right_want, assignment) + [op])


def evaluate(tokens: list, assignment: list[int]) -> int:
    stack: list[int] = []
    for token in tokens:
        if isinstance(token, int):
            stack.append(assignment[token])
        else:
            right = stack.pop()
            stack.append(APPLY[token](stack.pop(), right))
    return stack[0]


def infix(tokens: list) -> str:
    stack: list[str] = []
    for token in tokens:
        if isinstance(token, int):
            stack.append(f"x[{token}]")
        else:
            right = stack.pop()
            stack.append(f"({stack.pop()} {token} {right})")
    text = stack[0]
    return text[1:-1] if text.startswith("(") else text


class Circuit(Environment):
    name = "Circuit"

    def levels(self, difficulty):
        n = 2 + difficulty
        return [{"N": n, "M": int(m * n)} for m in sweep(2.0, 5.0)]

    def sample(self, params, rng):
        n = params["N"]
        assignment = [0] * n
        while len(set(assignment)) < 2:  # both values are needed to plant a satisfiable formula of &, |, ^
            assignment = [rng.randint(0, 1) for _ in range(n)]
        formula = planted_formula(rng, params["M"], 1, assignment)
        return {"N": n, "formula": formula, "reference": " ".join(map(str, assignment))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"There are {n} Boolean variables x[0], ..., x[{n - 1}], each 0 or 1. Consider the formula "
            "(& is AND, | is OR, ^ is XOR):\n"
            f"{infix(data['formula'])}\n\n"
            "Find values of the variables that make the formula evaluate to 1.\n\n"
            f"Output Format: a single line with {n} values (0 or 1) x[0] ... x[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != data["N"] or any(v not in (0, 1) for v in values):
            return INVALID
        return float(evaluate(data["formula"], values) == 1)

    def perturb(self, problem, answer):
        return answer + " 0"  # one value too many
