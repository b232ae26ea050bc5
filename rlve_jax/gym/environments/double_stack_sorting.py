"""DoubleStackSorting (held-out): operations over two stacks that produce a given output order."""

from rlve_jax.gym.env import MAX_ANSWER_CHARS, Environment, FormatError
from rlve_jax.gym.environments._common import INVALID, grow_1p1, positional_match_reward

PUSH = {"a": 0, "c": 1}  # next input element onto stack 1 / stack 2
POP = {"b": 0, "d": 1}  # top of stack 1 / stack 2 to the output


def run(operations: str, n: int) -> list[int] | None:
    """The output produced by an operation string, or None at the first illegal operation."""
    stacks: list[list[int]] = [[], []]
    next_input, output = 0, []
    for op in operations:
        if op in PUSH:
            if next_input == n:
                return None
            stacks[PUSH[op]].append(next_input)
            next_input += 1
        else:
            stack = stacks[POP[op]]
            if not stack:
                return None
            output.append(stack.pop())
    return output


class DoubleStackSorting(Environment):
    name = "DoubleStackSorting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        stacks: list[list[int]] = [[], []]
        next_input, operations = 0, []
        while len(operations) < 2 * n:
            legal = [op for op in PUSH if next_input < n] + [op for op, s in POP.items() if stacks[s]]
            op = rng.choice(legal)
            operations.append(op)
            if op in PUSH:
                stacks[PUSH[op]].append(next_input)
                next_input += 1
            else:
                stacks[POP[op]].pop()
        plan = "".join(operations)
        return {"N": n, "target": run(plan, n), "reference": plan}

    def prompt(self, data):
        n = data["N"]
        return (
            f"There is an input queue holding 0, 1, ..., {n - 1} (0 at the front), two empty stacks S1 and S2, "
            "and an empty output sequence. The allowed operations are:\n"
            "a: move the front element of the queue onto the top of S1\n"
            "b: pop the top element of S1 and append it to the output\n"
            "c: move the front element of the queue onto the top of S2\n"
            "d: pop the top element of S2 and append it to the output\n\n"
            f"Give a sequence of operations after which the output is exactly: {' '.join(map(str, data['target']))}\n\n"
            "Output Format: a single string of the letters a, b, c and d (for example `acbd`), one letter per "
            "operation, performed from left to right."
        )

    def score(self, data, answer):
        if len(answer) > MAX_ANSWER_CHARS:
            raise FormatError("answer too long")
        operations = "".join(answer.split())
        if set(operations) - set("abcd"):
            raise FormatError("unknown operation")
        n = data["N"]
        output = run(operations, n)
        if output is None or len(output) != n:
            return INVALID
        return positional_match_reward(output, data["target"], beta=10)
