"""InversionPairK_Counting: permutations of 1..N with exactly K inversions, modulo MOD."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1, mod_output_format


def count_with_inversions(n: int, k: int, mod: int) -> int:
    """Insert the values one by one: the i-th adds between 0 and i-1 inversions (prefix sums)."""
    ways = [1] + [0] * k
    for i in range(1, n + 1):
        prefix = [0]
        for w in ways:
            prefix.append((prefix[-1] + w) % mod)
        ways = [(prefix[j + 1] - prefix[max(0, j - i + 1)]) % mod for j in range(k + 1)]
    return ways[k]


class InversionPairK_Counting(ModCountingEnvironment):
    name = "InversionPairK_Counting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(0, n * (n - 1) // 2)
        mod = rng.randint(2, 10 ** 6)
        return {"N": n, "K": k, "MOD": mod, "gold": count_with_inversions(n, k, mod)}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"Count the permutations of 1, 2, ..., {n} that have exactly {k} inversions (pairs of positions "
            "i < j with p[i] > p[j]).\n\n" + mod_output_format(data["MOD"])
        )
