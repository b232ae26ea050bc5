"""SegmentTreeSortingCounting: sequences of block swaps (each block size used at most once) that sort a permutation."""

from math import factorial

from rlve_jax.gym.environments._common import CountingEnvironment


def sorting_sequences(permutation: list[int], levels: int) -> int:
    """Sum over workable sets of swap sizes of |set|!: the order of the chosen swaps never matters.

    Sizes are decided from small to large. Before deciding size 2^i, every aligned block of size 2^i
    must already be a run of consecutive values; at size 2^i the blocks of size 2^(i+1) that are not
    runs (at most two) pin down the swap, which must repair all of them.
    """
    array = list(permutation)

    def is_run(start: int, half: int) -> bool:
        return array[start + half] == array[start] + half

    def swap(a: int, b: int, size: int) -> None:
        array[a:a + size], array[b:b + size] = array[b:b + size], array[a:a + size]

    def search(level: int, used: int) -> int:
        if level == levels:
            return factorial(used)
        size = 1 << level
        broken = [start for start in range(0, len(array), 2 * size) if not is_run(start, size)]
        if not broken:
            return search(level + 1, used)
        if len(broken) > 2:
            return 0
        candidates = ([(broken[0], broken[0] + size)] if len(broken) == 1 else
                      [(broken[0] + da, broken[1] + db) for da in (0, size) for db in (0, size)])
        total = 0
        for a, b in candidates:
            swap(a, b, size)
            if all(is_run(start, size) for start in broken):
                total += search(level + 1, used + 1)
            swap(a, b, size)
        return total

    return search(0, 0)


class SegmentTreeSortingCounting(CountingEnvironment):
    name = "SegmentTreeSortingCounting"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        permutation = list(range(1, 2 ** n + 1))
        sizes = [1 << i for i in range(n) if rng.random() < 0.5]
        rng.shuffle(sizes)
        for size in sizes:
            a, b = rng.sample(range(0, 2 ** n, size), 2)
            permutation[a:a + size], permutation[b:b + size] = permutation[b:b + size], permutation[a:a + size]
        return {"N": n, "permutation": permutation, "gold": sorting_sequences(permutation, n)}

    def prompt(self, data):
        n = data["N"]
        return (
            f"You are given a permutation of 1 to {2 ** n}: {' '.join(map(str, data['permutation']))}\n"
            f"There are {n} types of operations, numbered 1 to {n}. An operation of type i splits the sequence into "
            f"consecutive blocks of 2^(i-1) elements each (from the start) and swaps two different blocks. "
            f"Each type may be used at most once, and the used operations may be performed in any order. "
            f"How many different sequences of operations turn the permutation into 1, 2, ..., {2 ** n}? Two "
            f"sequences differ if their lengths differ or some step uses a different type or swaps different blocks; "
            f"the empty sequence counts if the permutation is already sorted.\n\n"
            "Output Format: a single integer, the number of operation sequences."
        )
