"""Differentiate: the derivative of a random function of x, checked without running model text."""

from rlve_jax.gym.environments._formulas import FormulaEnvironment


class Differentiate(FormulaEnvironment):
    name = "Differentiate"

    def prompt(self, data):
        return (
            f"You are given a function: F(x) = {data['function']}\n"
            "Please compute its derivative F'(x).\n\n" + self.output_format(data, "2*x*cos(x**2)")
        )

    def reference(self, problem):
        return problem.data["derivative"]

    def perturb(self, problem, answer):
        return f"{answer} + 1"
