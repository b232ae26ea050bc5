"""QuantumLockPuzzle: buttons change Y by a rule that depends on a bit X, which flips at every press."""

import random

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, parse_ints


STEP_CHOICES = list(range(2, 11))  # presses used to plant the target


def random_rule(rng: random.Random) -> list:
    kind = rng.choice("+-*")
    return [kind, rng.randint(2, 3) if kind == "*" else rng.randint(1, 9)]


def apply_rule(rule: list, y: int) -> int:
    kind, value = rule
    return y + value if kind == "+" else y - value if kind == "-" else y * value


class QuantumLockPuzzle(Environment):
    name = "QuantumLockPuzzle"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty, "steps": steps} for steps in STEP_CHOICES]

    def sample(self, params, rng):
        while True:
            buttons = [[random_rule(rng), random_rule(rng)] for _ in range(params["N"])]
            presses = [rng.randrange(params["N"]) for _ in range(params["steps"])]
            y = 0
            for step, button in enumerate(presses):
                y = apply_rule(buttons[button][step % 2], y)
            if y != 0:  # the empty sequence must not already reach the target
                return {"buttons": buttons, "target": y, "reference": " ".join(map(str, presses))}

    def prompt(self, data):
        def rule_text(rule: list) -> str:
            kind, value = rule
            return f"Y = Y {kind} {value}"

        lines = "\n".join(f"Button {i}: if X = 0 then {rule_text(zero)}; if X = 1 then {rule_text(one)}"
                          for i, (zero, one) in enumerate(data["buttons"]))
        return (
            "A lock has a bit X and an integer Y; initially X = 0 and Y = 0. Pressing a button first changes Y by "
            "the button's rule for the current value of X and then flips X (0 becomes 1, 1 becomes 0). The buttons "
            f"are:\n{lines}\n\n"
            f"Press buttons so that in the end Y = {data['target']}.\n\n"
            "Output Format: a single line with the indices of the pressed buttons in order, separated by spaces."
        )

    def score(self, data, answer):
        presses = parse_ints(answer)
        buttons, target = data["buttons"], data["target"]
        if any(not 0 <= b < len(buttons) for b in presses):
            return INVALID
        largest_step = max((value for pair in buttons for kind, value in pair if kind != "*"), default=0)
        y = 0
        for step, button in enumerate(presses):
            y = apply_rule(buttons[button][step % 2], y)
            if abs(y) - abs(target) > largest_step * (len(presses) - step - 1):
                return 0.0  # |Y| shrinks by at most largest_step per press (products never shrink it)
        return float(y == target)

    def perturb(self, problem, answer):
        return f"{answer} {len(problem.data['buttons'])}"  # a button that does not exist
