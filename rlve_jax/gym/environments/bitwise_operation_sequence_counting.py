"""BitwiseOperationSequenceCounting: AND/OR choices between N+1 bit strings that give a target."""

from collections import Counter

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format, grow_1p1


def count_operator_choices(values: list[int], target: int) -> int:
    """Left-to-right evaluation: a DP over the running value (at most 2^M distinct values)."""
    running = Counter({values[0]: 1})
    for value in values[1:]:
        step: Counter = Counter()
        for current, ways in running.items():
            step[current & value] += ways
            step[current | value] += ways
        running = step
    return running[target]


class BitwiseOperationSequenceCounting(CountingEnvironment):
    name = "BitwiseOperationSequenceCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        values = [rng.randint(0, 2 ** m - 1) for _ in range(n + 1)]
        target = values[0]
        for value in values[1:]:  # plant one operator choice so that the count is positive
            target = target & value if rng.random() < 0.5 else target | value
        return {"N": n, "M": m, "A": [format(v, f"0{m}b") for v in values], "target": format(target, f"0{m}b"),
                "gold": count_operator_choices(values, target)}

    def prompt(self, data):
        n = data["N"]
        lines = "\n".join(f"A[{i}] = {bits}" for i, bits in enumerate(data["A"]))
        return (
            f"You are given {n + 1} binary strings of length {data['M']}:\n{lines}\n\n"
            f"Between every two consecutive strings, place one of the bitwise operators AND or OR ({n} "
            f"operators in total), and evaluate strictly from left to right: "
            f"(((A[0] op1 A[1]) op2 A[2]) ... op{n} A[{n}]).\n"
            f"How many of the 2^{n} ways to choose the operators give the result {data['target']}?\n\n"
            + count_output_format()
        )
