"""BitEquationCounting: 0/1 assignments of the variables of a random &, |, ^ formula that make it 1."""

from rlve_jax.gym.environments._common import (
    CountingEnvironment, count_output_format, grow_1p1, parse_int, ratio_reward,
)


OPERATORS = ("&", "|", "^")


def random_formula(variables: list[str], rng) -> dict:
    """A random binary tree over the given leaves in order, with random operators."""
    if len(variables) == 1:
        return {"var": variables[0]}
    cut = rng.randint(1, len(variables) - 1)
    return {"op": rng.choice(OPERATORS),
            "left": random_formula(variables[:cut], rng), "right": random_formula(variables[cut:], rng)}


def render(node: dict, top: bool = True) -> str:
    if "var" in node:
        return node["var"]
    text = f"{render(node['left'], False)} {node['op']} {render(node['right'], False)}"
    return text if top else f"({text})"


def count_true(node: dict) -> tuple[int, int]:
    """(assignments giving 0, assignments giving 1); every variable occurs once."""
    if "var" in node:
        return 1, 1
    (l0, l1), (r0, r1) = count_true(node["left"]), count_true(node["right"])
    total = (l0 + l1) * (r0 + r1)
    ones = {"&": l1 * r1, "|": total - l0 * r0, "^": l0 * r1 + l1 * r0}[node["op"]]
    return total - ones, ones


class BitEquationCounting(CountingEnvironment):
    name = "BitEquationCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        formula = random_formula([f"x{i}" for i in range(1, n + 1)], rng)
        return {"N": n, "expression": render(formula), "gold": count_true(formula)[1]}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Each of the {n} variables x1, ..., x{n} takes the value 0 or 1. Consider the expression\n"
            f"{data['expression']}\n"
            "where & is AND, | is OR and ^ is XOR, and parentheses give the order of evaluation.\n"
            f"How many of the 2^{n} assignments of values to the variables make the expression equal to 1?\n\n"
            + count_output_format()
        )

    def score(self, data, answer):
        value = parse_int(answer)
        if not 0 <= value <= 2 ** data["N"]:
            return -0.5
        return ratio_reward(value, data["gold"], self.beta)
