"""SAT (C16): find a boolean assignment that satisfies every clause of a planted CNF formula."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import fraction_reward, parse_ints

CLAUSE_MULTIPLES = tuple(range(10, 51))  # m = 1.0, 1.1, ..., 5.0 in tenths; M = int(m * N) in floating point
LITERAL_DENSITIES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


class SAT(Environment):
    name = "SAT"

    def levels(self, difficulty):
        n = 3 + difficulty
        # tenths / 10 is the same double as the original's literal m, and int() truncates the float product
        # as the original does (e.g. 4.6 * 25 = 114.99999... gives 114 clauses, not 115).
        return [{"N": n, "M": int(tenths / 10 * n), "density": density}
                for tenths in CLAUSE_MULTIPLES for density in LITERAL_DENSITIES]

    def sample(self, params, rng):
        n, density = params["N"], params["density"]
        hidden = [rng.randint(0, 1) for _ in range(n)]
        clauses = []
        while len(clauses) < params["M"]:
            # A literal is [variable, is_positive]; keep clauses with >= 2 literals that `hidden` satisfies.
            clause = [[v, rng.randint(0, 1)] for v in range(n) if rng.random() < density]
            if len(clause) >= 2 and any(hidden[v] == positive for v, positive in clause):
                clauses.append(clause)
        return {"N": n, "clauses": clauses, "reference": " ".join(map(str, hidden))}

    def prompt(self, data):
        lines = "\n".join(
            " | ".join(f"({'' if positive else '!'}x[{v}])" for v, positive in clause) for clause in data["clauses"])
        n = data["N"]
        return (
            f"There are {n} boolean (0/1) values x[0], x[1], ..., x[{n - 1}]. Each of the following "
            f"{len(data['clauses'])} expressions (`|` means OR, `!` means NOT) must equal 1:\n{lines}\n\n"
            f"Find values for x[0], ..., x[{n - 1}] that satisfy all the expressions.\n\n"
            f"Output Format: a single line with {n} values (each 0 or 1) separated by spaces, x[0] first."
        )

    def score(self, data, answer):
        values = parse_ints(answer)
        if len(values) != data["N"] or any(v not in (0, 1) for v in values):
            raise FormatError("need N values in {0, 1}")  # the catalog counts this as a format error
        satisfied = sum(any(values[v] == positive for v, positive in clause) for clause in data["clauses"])
        return fraction_reward(satisfied, len(data["clauses"]), beta=10)

    def perturb(self, problem, answer):
        return answer + " 1"  # one value too many
