"""MonotonicStack: sum over i of how far to the right A[i] stays strictly above every element it sees."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def visible_total(values: list[int]) -> int:
    """Monotonic stack from the right: each i sees up to (not including) the next element >= A[i]."""
    n, total, stack = len(values), 0, []
    for i in range(n - 1, -1, -1):
        while stack and values[stack[-1]] < values[i]:
            stack.pop()
        total += (stack[-1] if stack else n) - i - 1
        stack.append(i)
    return total


class MonotonicStack(ExactIntegerEnvironment):
    name = "MonotonicStack"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        values = [rng.randint(1, params["N"]) for _ in range(params["N"])]
        return {"A": values, "reference": str(visible_total(values))}

    def prompt(self, data):
        n = len(data["A"])
        return (
            f"You are given an array A of length {n} (indexed from 1): {' '.join(map(str, data['A']))}\n"
            "For each index i, let C[i] be the number of indices j > i such that every element A[i+1], ..., A[j] "
            f"is strictly less than A[i]. Compute C[1] + C[2] + ... + C[{n}].\n\n"
            "Output Format: a single integer."
        )
