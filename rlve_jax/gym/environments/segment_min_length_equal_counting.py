"""SegmentMinLengthEqual_Counting: arrays over a value set that split into segments with minimum = length."""

from rlve_jax.gym.environments._common import ModCountingEnvironment


def splittable_arrays(n: int, allowed: list[int]) -> int:
    """Exact count. From a segment start the minimum only falls while the length grows, so at most one end
    works and the split is unique: sum over compositions of n of prod(#segments of length L with min L)."""
    def at_least(value: int) -> int:
        return sum(1 for a in allowed if a >= value)

    segment = [0] + [at_least(length) ** length - at_least(length + 1) ** length for length in range(1, n + 1)]
    ways = [1] + [0] * n
    for end in range(1, n + 1):
        ways[end] = sum(ways[end - length] * segment[length] for length in range(1, end + 1))
    return ways[n]


class SegmentMinLengthEqual_Counting(ModCountingEnvironment):
    name = "SegmentMinLengthEqual_Counting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        allowed = sorted(rng.sample(range(1, n + 1), rng.randint(2, n)))
        mod = rng.randint(2, 10 ** 6)
        return {"N": n, "allowed": allowed, "mod": mod, "gold": splittable_arrays(n, allowed) % mod}

    def prompt(self, data):
        n = data["N"]
        allowed = ", ".join(map(str, data["allowed"]))
        return (
            f"Count the arrays a[1..{n}] whose entries all belong to the set {{{allowed}}} "
            f"and that can be cut into consecutive non-empty segments (covering the whole array) such that in every "
            f"segment the minimum entry equals the segment's length.\n\n"
            f"Output Format: a single integer, the number of such arrays modulo {data['mod']}."
        )
