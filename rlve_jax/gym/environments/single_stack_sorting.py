"""SingleStackSorting: push/pop operations (a/b) that turn the queue 0..N-1 into a target output."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_letters, positional_match_reward
from rlve_jax.gym.env import Environment


def run_stack(n: int, operations: str) -> list[int] | None:
    """Output of `a` (push the next input) / `b` (pop to the output); None if an operation is illegal."""
    pushed, stack, output = 0, [], []
    for op in operations:
        if op == "a":
            if pushed == n:
                return None
            stack.append(pushed)
            pushed += 1
        else:
            if not stack:
                return None
            output.append(stack.pop())
    return output


class SingleStackSorting(Environment):
    name = "SingleStackSorting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        operations, pushed, depth = [], 0, 0
        while len(operations) < 2 * n:
            push = pushed < n and (depth == 0 or rng.random() < 0.5)
            operations.append("a" if push else "b")
            pushed, depth = pushed + push, depth + (1 if push else -1)
        operations = "".join(operations)
        return {"N": n, "target": run_stack(n, operations), "reference": operations}

    def prompt(self, data):
        n = data["N"]
        return (
            f"The numbers 0, 1, ..., {n - 1} wait in an input queue in this order, and there is an empty stack. "
            "Two operations are available:\n"
            "- `a`: move the next number of the input queue onto the top of the stack;\n"
            "- `b`: pop the top of the stack and append it to the output sequence.\n"
            "Give a sequence of operations that empties the queue and the stack and produces this output "
            f"sequence:\n{' '.join(map(str, data['target']))}\n\n"
            "Output Format: a single line of the letters `a` and `b` with no separators, e.g. `aabb`."
        )

    def score(self, data, answer):
        output = run_stack(data["N"], parse_letters(answer, "ab"))
        if output is None or len(output) != data["N"]:
            return INVALID
        return positional_match_reward(output, data["target"], 10)
