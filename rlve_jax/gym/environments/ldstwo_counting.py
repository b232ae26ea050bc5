"""LDSTwo_Counting: permutations of 1..N with A[X] = Y and no decreasing subsequence of length 3."""

from rlve_jax.gym.environments._common import CountingEnvironment, grow_1p1


def count_321_avoiding_with_fixed_point(n: int, x: int, y: int) -> int:
    """Permutations of 1..n avoiding 321 with value y at position x (1-based).

    In a 321-avoiding permutation every entry is either a new prefix maximum or the smallest
    unused value, so a prefix is described by (current maximum, how many values below y are
    still unused, whether y is placed). O(n^4) DP.
    """
    states = {(0, y - 1, False): 1}  # (prefix maximum, unused values below y, y placed) -> count
    for position in range(1, n + 1):
        nxt: dict[tuple[int, int, bool], int] = {}
        for (maximum, below, placed), ways in states.items():
            moves = []
            if maximum > position - 1:  # the smallest unused value, below the maximum
                if below > 0:
                    moves.append((maximum, below - 1, placed, False))
                else:  # all of 1..y-1 used: the smallest unused value is y itself, or above y
                    moves.append((maximum, 0, True, not placed))
            for value in range(maximum + 1, n + 1):  # a new maximum
                moves.append((value, below - (value < y), placed or value == y, value == y))
            for new_maximum, new_below, new_placed, is_y in moves:
                if is_y != (position == x):
                    continue
                key = (new_maximum, new_below, new_placed)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    return sum(states.values())


class LDSTwo_Counting(CountingEnvironment):
    name = "LDSTwo_Counting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        x, y = rng.randint(1, n), rng.randint(1, n)
        return {"N": n, "X": x, "Y": y, "gold": count_321_avoiding_with_fixed_point(n, x, y)}

    def prompt(self, data):
        n, x, y = data["N"], data["X"], data["Y"]
        return (
            f"Consider the permutations A[1], A[2], ..., A[{n}] of the integers 1 to {n}. "
            f"Count those that satisfy both conditions:\n"
            f"- A[{x}] = {y};\n"
            f"- A has no decreasing subsequence of length 3, i.e. there are no indices i < j < k "
            f"with A[i] > A[j] > A[k].\n\n"
            "Output Format: a single integer, the number of such permutations."
        )
