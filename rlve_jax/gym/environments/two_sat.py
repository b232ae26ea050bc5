"""TwoSAT: satisfy a 2-CNF formula with a planted solution."""

from rlve_jax.gym.environments._common import drop_last_tokens, fraction_reward, grow_1p1, parse_exact_ints, sweep
from rlve_jax.gym.env import Environment, FormatError


def literal_text(variable: int, positive: bool) -> str:
    return f"x[{variable}]" if positive else f"!x[{variable}]"


class TwoSAT(Environment):
    name = "TwoSAT"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return [{"N": n, "M": int(m * n)} for m in sweep(1.0, 5.0)]

    def sample(self, params, rng):
        n = params["N"]
        x = [rng.randint(0, 1) for _ in range(n)]
        clauses = []
        while len(clauses) < params["M"]:
            a, b = rng.sample(range(n), 2)
            clause = [[a, rng.random() < 0.5], [b, rng.random() < 0.5]]
            if any(x[v] == positive for v, positive in clause):
                clauses.append(clause)
        return {"N": n, "clauses": clauses, "reference": " ".join(map(str, x))}

    def prompt(self, data):
        n = data["N"]
        lines = "\n".join(f"({literal_text(*first)}) | ({literal_text(*second)})" for first, second in data["clauses"])
        return (
            f"There are {n} Boolean variables x[0], ..., x[{n - 1}], each 0 or 1. Each of the following clauses "
            "(| is OR, ! is NOT) must evaluate to 1:\n"
            f"{lines}\n\n"
            f"Output Format: a single line with {n} values (0 or 1) x[0] ... x[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        x = parse_exact_ints(answer, data["N"])
        if any(v not in (0, 1) for v in x):
            raise FormatError("expected N values 0 or 1")
        satisfied = sum(any(x[v] == positive for v, positive in clause) for clause in data["clauses"])
        return fraction_reward(satisfied, len(data["clauses"]), beta=10)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
