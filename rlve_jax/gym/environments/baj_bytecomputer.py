"""BAJBytecomputer (held-out): fewest X[i+1] += X[i] operations to sort a -1/0/+1 array."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def min_operations(values: list[int]) -> int | None:
    """DP over the final value of the last position; None if the array cannot be sorted.

    An optimal solution never leaves {-1, 0, 1} and fixes positions left to right, adding
    the (final) previous value k <= 2 times.
    """
    best = {values[0]: 0}
    for a in values[1:]:
        nxt: dict[int, int] = {}
        for prev, cost in best.items():
            for target in (-1, 0, 1):
                if target < prev:
                    continue
                if prev == 0:
                    k = 0 if a == target else None
                else:
                    k = (target - a) * prev  # a + k * prev == target
                if k is not None and k >= 0:
                    nxt[target] = min(nxt.get(target, k + cost), k + cost)
        best = nxt
    return min(best.values()) if best else None


class BAJBytecomputer(ExactIntegerEnvironment):
    name = "BAJBytecomputer"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            weights = [rng.randint(1, n) for _ in range(3)]
            values = rng.choices([-1, 0, 1], weights=weights, k=n)
            answer = min_operations(values)
            if answer is not None:
                return {"values": values, "reference": str(answer)}

    def prompt(self, data):
        values = data["values"]
        listing = " ".join(f"X[{i}]={v}" for i, v in enumerate(values))
        return (
            f"You are given an array X of length {len(values)} whose entries are -1, 0 or 1:\n{listing}\n\n"
            f"In one operation you choose an index i (0 <= i < {len(values) - 1}) and add X[i] to X[i+1] "
            "(that is, X[i+1] := X[i+1] + X[i]). What is the minimum number of operations needed to make "
            "the array non-decreasing (X[0] <= X[1] <= ... )?\n\n"
            "Output Format: a single integer, the minimum number of operations."
        )
