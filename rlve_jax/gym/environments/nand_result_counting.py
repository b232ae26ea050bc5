"""NANDResultCounting: how many values in [L, R] can be built from given K-bit numbers with NAND."""

from rlve_jax.gym.environments._common import CountingEnvironment, grow_1p1


def bit_classes(numbers: list[int], k: int) -> list[int]:
    """Class id per bit (index = bit): bits with the same column over all numbers share a class.

    NAND is functionally complete and x NAND (x NAND x) is all ones, so every bitwise Boolean function
    of the inputs is reachable: a value is reachable iff it is constant on every class.
    """
    columns: dict[tuple[int, ...], int] = {}
    return [columns.setdefault(tuple(x >> bit & 1 for x in numbers), len(columns)) for bit in range(k)]


def reachable_at_most(limit: int, classes: list[int]) -> int:
    """Reachable values in [0, limit], by walking the bits of `limit` from the top."""
    if limit < 0:
        return 0
    k = len(classes)
    limit = min(limit, (1 << k) - 1)
    fixed: dict[int, int] = {}
    count = 0
    for bit in range(k - 1, -1, -1):
        wanted = limit >> bit & 1
        if wanted and fixed.get(classes[bit], 0) == 0:  # put 0 here: every lower free class is open
            free_below = {classes[b] for b in range(bit)} - set(fixed) - {classes[bit]}
            count += 2 ** len(free_below)
        if fixed.setdefault(classes[bit], wanted) != wanted:
            return count
    return count + 1  # the value equal to limit itself


class NANDResultCounting(CountingEnvironment):
    name = "NANDResultCounting"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty), "K": 2 + difficulty}]

    def sample(self, params, rng):
        """The bits are shuffled and cut into U[1, K] groups; each number has its own bias p = U(0, 1) and holds
        each whole group with probability p. L and R are two independent uniform K-bit values, sorted."""
        n, k = params["N"], params["K"]
        bits = rng.sample(range(k), k)
        cuts = sorted(rng.sample(range(1, k), rng.randint(1, k) - 1))
        groups = [bits[a:b] for a, b in zip([0] + cuts, cuts + [k])]
        numbers = []
        for _ in range(n):
            p = rng.random()
            numbers.append(sum(1 << b for group in groups if rng.random() < p for b in group))
        low, high = sorted((rng.randrange(1 << k), rng.randrange(1 << k)))
        classes = bit_classes(numbers, k)
        return {"K": k, "numbers": numbers, "L": low, "R": high,
                "gold": reachable_at_most(high, classes) - reachable_at_most(low - 1, classes)}

    def prompt(self, data):
        k = data["K"]
        return (
            f"You are given {len(data['numbers'])} integers, each with {k} bits (in [0, {2 ** k - 1}]): "
            f"{' '.join(map(str, data['numbers']))}\n"
            f"The NAND of two {k}-bit integers x and y is the bitwise NOT of (x AND y), kept to {k} bits. "
            f"Starting from the given integers you may apply NAND any number of times, to any two integers you "
            f"already have (an integer may be used several times, also twice in one operation). "
            f"How many integers in the range [{data['L']}, {data['R']}] can be obtained this way?\n\n"
            "Output Format: a single integer, the count."
        )
