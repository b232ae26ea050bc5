"""RangeShrinkingSequenceCounting: sequences A with 1 <= A_i <= R_i where each A_i (i >= 3) lies between the
nearest earlier values that bracket A_{i-1}."""

from rlve_jax.gym.environments._common import ModCountingEnvironment


def next_state(low: int, high: int, previous: int, value: int) -> tuple[int, int, int]:
    """Bracket of `value` among the earlier values, knowing none of them lies strictly inside (low, high)."""
    new_low = max(low, high if high <= value else low, previous if previous <= value else low)
    new_high = min(high, low if low >= value else high, previous if previous >= value else high)
    return new_low, new_high, value


def shrinking_sequences(bounds: list[int]) -> int:
    """Exact count. State: (L, R, A_{i-1}); 0 and top+1 stand for minus and plus infinity."""
    top = max(bounds)
    states = {(0, top + 1, first): 1 for first in range(1, bounds[0] + 1)}
    for bound in bounds[1:]:
        nxt: dict[tuple[int, int, int], int] = {}
        for (low, high, previous), ways in states.items():
            for value in range(max(low, 1), min(high, bound) + 1):
                key = next_state(low, high, previous, value)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    return sum(states.values())


def planted_sequence(n: int, top: int, rng) -> list[int]:
    """A valid sequence with values in [1, top], each entry uniform within its allowed range."""
    low, high, previous = 0, top + 1, rng.randint(1, top)
    sequence = [previous]
    for _ in range(n - 1):
        value = rng.randint(max(low, 1), min(high, top))
        low, high, previous = next_state(low, high, previous, value)
        sequence.append(value)
    return sequence


class RangeShrinkingSequenceCounting(ModCountingEnvironment):
    name = "RangeShrinkingSequenceCounting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        bounds = [rng.randint(value, n) for value in planted_sequence(n, n, rng)]
        mod = rng.randint(2, 10 ** 6)
        return {"bounds": bounds, "mod": mod, "gold": shrinking_sequences(bounds) % mod}

    def prompt(self, data):
        bounds = data["bounds"]
        n = len(bounds)
        return (
            f"Count the integer sequences A[1..{n}] such that 1 <= A[i] <= R[i] for every i, where R = "
            f"{' '.join(map(str, bounds))}, and such that for every i from 3 to {n}: let L be the largest of "
            f"A[1..i-2] that is <= A[i-1] (minus infinity if there is none) and let U be the smallest of A[1..i-2] "
            f"that is >= A[i-1] (plus infinity if there is none); then L <= A[i] <= U must hold.\n\n"
            f"Output Format: a single integer, the number of such sequences modulo {data['mod']}."
        )
