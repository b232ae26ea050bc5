"""BoundedIntervalIntersection: non-empty sets of intervals whose common part has length >= K."""

from rlve_jax.gym.environments._common import CountingEnvironment, count_output_format, grow_1p1


def count_subsets(intervals: list[list[int]], k: int) -> int:
    """Charge each subset to its member with the largest left end (ties: the largest index).

    With that member i fixed, the others are any intervals j before it in (left, index)
    order whose right end reaches left_i + K, and i itself must reach it too.
    """
    total = 0
    for i, (left, right) in enumerate(intervals):
        if right - left < k:
            continue
        partners = sum(1 for j, (l2, r2) in enumerate(intervals)
                       if (l2, j) < (left, i) and r2 >= left + k)
        total += 2 ** partners
    return total


class BoundedIntervalIntersection(CountingEnvironment):
    name = "BoundedIntervalIntersection"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            intervals = [sorted((rng.randint(0, n), rng.randint(0, n))) for _ in range(n)]
            longest = max(r - l for l, r in intervals)
            if longest >= 1:
                break
        k = rng.randint(1, longest)
        return {"N": n, "K": k, "intervals": intervals, "gold": count_subsets(intervals, k)}

    def prompt(self, data):
        lines = "\n".join(f"[{l}, {r}]" for l, r in data["intervals"])
        return (
            f"You are given {data['N']} closed intervals on the number line:\n{lines}\n\n"
            "Count the non-empty subsets of these intervals (intervals are distinguished by their position "
            "in the list, even if equal) whose common intersection is an interval of length at least "
            f"{data['K']}. The intersection of [l1, r1], ..., [lk, rk] is [max l, min r] and its length is "
            "min r - max l.\n\n" + count_output_format()
        )
