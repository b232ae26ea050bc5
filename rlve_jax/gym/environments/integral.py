"""Integral: an antiderivative of a random function of x, checked without running model text."""

from rlve_jax.gym.environments._formulas import FormulaEnvironment


class Integral(FormulaEnvironment):
    name = "Integral"
    integrate = True

    def prompt(self, data):
        return (
            f"You are given the derivative of a function: F'(x) = {data['derivative']}\n"
            "Please find an antiderivative F(x), i.e. any function whose derivative is the expression above.\n\n"
            + self.output_format(data, "sin(2*x)/2")
        )

    def reference(self, problem):
        return problem.data["function"]

    def perturb(self, problem, answer):
        return f"{answer} + x"  # a constant would still be an antiderivative
