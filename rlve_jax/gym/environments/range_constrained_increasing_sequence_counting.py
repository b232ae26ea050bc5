"""RangeConstrained_IncreasingSequence_Counting: entries 0 or in [L_i, R_i], non-zero entries strictly increasing."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1

MOD = 10 ** 9 + 7


def increasing_choices(ranges: list[list[int]]) -> int:
    """Sequences with at least one non-zero entry, mod MOD; ending[v] counts those whose last non-zero is v."""
    top = max(high for _, high in ranges)
    ending = [0] * (top + 1)
    for low, high in ranges:
        below = 1 + sum(ending[:low])  # 1: every earlier entry is zero
        updates = []
        for value in range(low, high + 1):
            updates.append((value, below))
            below += ending[value]
        for value, ways in updates:
            ending[value] = (ending[value] + ways) % MOD
    return sum(ending) % MOD


class RangeConstrained_IncreasingSequence_Counting(ModCountingEnvironment):
    name = "RangeConstrained_IncreasingSequence_Counting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        ranges = []
        for _ in range(n):
            low = rng.randint(1, n * n)
            ranges.append([low, rng.randint(low, n * n)])
        return {"ranges": ranges, "mod": MOD, "gold": increasing_choices(ranges)}

    def prompt(self, data):
        ranges = data["ranges"]
        n = len(ranges)
        listing = "\n".join(f"L[{i}] = {low}, R[{i}] = {high}" for i, (low, high) in enumerate(ranges, 1))
        return (
            f"Count the sequences a[1..{n}] of integers such that:\n"
            f"- for every i, either a[i] = 0 or L[i] <= a[i] <= R[i], with\n{listing}\n"
            f"- at least one a[i] is non-zero;\n"
            f"- the non-zero entries, read from left to right, are strictly increasing.\n\n"
            f"Output Format: a single integer, the number of such sequences modulo {MOD}."
        )
