"""AndOr_Sequence_Counting: arrays B with A&B non-decreasing and A|B non-increasing."""

from functools import cache

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format, grow_1p1


def count_non_decreasing_submask_sequences(masks: list[int], bits: int) -> int:
    """Non-decreasing sequences C with C[i] a submask of masks[i].

    Bits are decided from the top. Positions that agree on all higher bits form runs
    that must stay sorted: inside a run the current bit reads 0...0 1...1, which splits
    the run in two, and the two halves are independent from then on.
    """
    @cache
    def ways(left: int, right: int, bit: int) -> int:
        if bit < 0 or left > right:
            return 1
        total = 0
        for split in range(left, right + 2):  # positions split..right take bit 1
            if all(masks[i] >> bit & 1 for i in range(split, right + 1)):
                total += ways(left, split - 1, bit - 1) * ways(split, right, bit - 1)
        return total

    return ways(0, len(masks) - 1, bits - 1)


def count_and_or_sequences(array: list[int], bits: int) -> int:
    """B[i] is fixed by C = A&B (a submask of A) and D = A|B (a supermask of A), independently.

    So the count is (sorted submask sequences of A) * (non-increasing supermask sequences
    of A); complementing turns the second into sorted submask sequences of ~A.
    """
    full = (1 << bits) - 1
    return (count_non_decreasing_submask_sequences(array, bits)
            * count_non_decreasing_submask_sequences([full ^ a for a in array], bits))


class AndOr_Sequence_Counting(CountingEnvironment):
    name = "AndOr_Sequence_Counting"
    size_keys = ("N",)

    def levels(self, difficulty):
        n = grow_1p1(2, difficulty)
        return [{"N": n, "M": m} for m in range(1, 21)]

    def sample(self, params, rng):
        n, m = params["N"], params["M"]
        array = [rng.randint(0, 2 ** m - 1) for _ in range(n)]
        return {"N": n, "M": m, "A": array, "gold": count_and_or_sequences(array, m)}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"You are given an array A of {n} integers, each in [0, 2^{m}):\n"
            + " ".join(map(str, data["A"])) + "\n\n"
            f"Count the arrays B of {n} integers, each in [0, 2^{m}), such that:\n"
            "- the sequence (A[i] AND B[i]) for i = 1..N is non-decreasing, and\n"
            "- the sequence (A[i] OR B[i]) for i = 1..N is non-increasing,\n"
            f"where N = {n} and AND / OR are bitwise operations.\n\n" + count_output_format()
        )
