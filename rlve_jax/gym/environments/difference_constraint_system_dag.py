"""DifferenceConstraintSystemDAG: positive integers satisfying pairwise relations (=, <, <=, >, >=)
with the smallest possible sum."""

from rlve_jax.gym.environments._common import fraction_reward, grow_1p1, parse_exact_ints, sweep
from rlve_jax.gym.env import Environment

RATIOS = sweep(1.0, 2.0)  # M = floor(m * N), m = 1.0, 1.1, ..., 2.0
HOLDS = {
    "=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def least_solution(n: int, relations: list[list]) -> list[int]:
    """The componentwise least solution with all x >= 1 (it also has the least sum): longest paths
    from 1 by repeated relaxation of x[a] >= x[b] + gap; a solution exists, so it converges."""
    lower_bounds = []  # (a, b, gap): x[a] >= x[b] + gap
    for a, relation, b in relations:
        if relation in ("=", ">=", ">"):
            lower_bounds.append((a, b, int(relation == ">")))
        if relation in ("=", "<=", "<"):
            lower_bounds.append((b, a, int(relation == "<")))
    x = [1] * n
    changed = True
    while changed:
        changed = False
        for a, b, gap in lower_bounds:
            if x[a] < x[b] + gap:
                x[a], changed = x[b] + gap, True
    return x


class DifferenceConstraintSystemDAG(Environment):
    name = "DifferenceConstraintSystemDAG"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return [{"N": n, "M": int(m * n)} for m in RATIOS]

    def sample(self, params, rng):
        n = params["N"]
        planted = [rng.randint(1, n) for _ in range(n)]
        relations = []
        for _ in range(params["M"]):
            a, b = rng.sample(range(n), 2)
            choices = [r for r, holds in HOLDS.items() if holds(planted[a], planted[b])]
            relations.append([a, rng.choice(choices), b])
        x = least_solution(n, relations)
        return {"N": n, "relations": relations, "optimum": sum(x), "reference": " ".join(map(str, x))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Find positive integers x[0], x[1], ..., x[{n - 1}] that satisfy all of the following relations:\n"
            + "\n".join(f"x[{a}] {relation} x[{b}]" for a, relation, b in data["relations"])
            + f"\nAmong all solutions, minimize the sum x[0] + x[1] + ... + x[{n - 1}]. "
            "(A solution is guaranteed to exist.)\n\n"
            f"Output Format: a single line with the {n} positive integers x[0] x[1] ... x[{n - 1}], "
            "separated by spaces."
        )

    def score(self, data, answer):
        x = parse_exact_ints(answer, data["N"])
        if any(v <= 0 for v in x):
            return 0.0
        relations = data["relations"]
        satisfied = sum(HOLDS[relation](x[a], x[b]) for a, relation, b in relations)
        reward = 0.5 * fraction_reward(satisfied, len(relations), beta=5)
        if satisfied == len(relations):
            reward += 0.5 * (data["optimum"] / sum(x)) ** 5
        return reward
