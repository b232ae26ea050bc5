"""NoDoubleTripleCounting: subsets of {1..N} with no pair (x, 2x) and no pair (x, 3x)."""

from rlve_jax.gym.environments._common import CountingEnvironment, grow_1p5


def free_subsets(n: int) -> int:
    """For each x coprime to 6 the numbers x*2^i*3^j <= n form a staircase grid in which 'x, 2x' are vertical
    and 'x, 3x' horizontal neighbours; count independent sets row by row over bitmask profiles."""
    total = 1
    for x in range(1, n + 1):
        if x % 2 == 0 or x % 3 == 0:
            continue
        widths = []
        row_start = x
        while row_start <= n:
            width, value = 0, row_start
            while value <= n:
                width, value = width + 1, value * 3
            widths.append(width)
            row_start *= 2
        profiles = {0: 1}
        for width in widths:
            rows = [mask for mask in range(1 << width) if mask & (mask >> 1) == 0]
            profiles = {mask: sum(ways for above, ways in profiles.items() if above & mask == 0) for mask in rows}
        total *= sum(profiles.values())
    return total


class NoDoubleTripleCounting(CountingEnvironment):
    name = "NoDoubleTripleCounting"
    long_answers = True  # exact answers outgrow Python's 4,300-digit int/str limit at high levels
    top_level = 18  # the largest draw of level 19 passes the output budget (tests/test_long_answers.py)
    positive_only = True

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        return {"N": n, "gold": free_subsets(n)}

    def prompt(self, data):
        n = data["N"]
        return (
            f"How many subsets S of {{1, 2, ..., {n}}} (the empty set included) have the property that for every x "
            f"in S, neither 2x nor 3x is in S?\n\n"
            "Output Format: a single integer, the number of such subsets."
        )
