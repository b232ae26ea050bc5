"""BitAndZero_PathCounting: paths S -> T in the DAG s -> t iff s < t and s AND t = 0, modulo 10000."""

import numpy as np

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


MOD = 10000


def count_paths(source: int, target: int, mod: int = MOD) -> int:
    """Path count modulo MOD, layer by highest set bit.

    If s AND t = 0 and s < t, the highest bit of s | t belongs to t, so t's highest bit is
    above s's; conversely any s below 2^h with s AND t = 0 precedes t of top bit h. So the
    count reaching t of top bit h is the subset sum of the counts below 2^h over the
    complement of t. The subset sums are extended one layer at a time: O(L 2^L).
    """
    subset_sums = np.array([1 if source == 0 else 0], dtype=np.int64)  # over the values [0, 1)
    for top in range(target.bit_length()):
        low = 1 << top
        layer = subset_sums[::-1].copy()  # counts of the values low .. 2*low-1
        if low <= source < 2 * low:
            layer[:] = 0
            layer[source - low] = 1
        if low <= target < 2 * low:
            return int(layer[target - low])
        for bit in range(top):  # subset-sum transform of the new layer
            view = layer.reshape(-1, 2, 1 << bit)
            view[:, 1, :] += view[:, 0, :]
            layer %= mod
        subset_sums = np.concatenate([subset_sums, (subset_sums + layer) % mod])
    return 0  # target == 0 has no incoming edge


class BitAndZero_PathCounting(ModCountingEnvironment):
    name = "BitAndZero_PathCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"max_length": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        length = params["max_length"]
        while True:  # S, T: a 1 then random bits, U[1, L] bits each, S the smaller; redraw answers 0 and 1
            source, target = (int("1" + "".join(rng.choice("01") for _ in range(rng.randint(1, length) - 1)), 2)
                              for _ in range(2))
            source, target = min(source, target), max(source, target)
            gold = count_paths(source, target)
            if gold > 1:
                return {"S": bin(source)[2:], "T": bin(target)[2:], "MOD": MOD, "gold": gold}

    def prompt(self, data):
        return (
            "Consider the directed graph whose vertices are the non-negative integers 0, 1, 2, ... and which "
            "has an edge from s to t exactly when s < t and (s AND t) = 0 (bitwise AND).\n"
            f"Count the paths (with at least one edge) from the vertex written in binary as {data['S']} to "
            f"the vertex written in binary as {data['T']}.\n\n" + mod_output_format(data["MOD"])
        )
