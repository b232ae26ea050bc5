"""RoyalLockCounting: placements of K mutually non-attacking kings on an N x N board."""

from rlve_jax.gym.environments._common import CountingEnvironment


def king_placements(n: int, k: int) -> int:
    """Row-by-row profile DP. The polynomial in the number of kings is packed into one integer with
    n*n+1 bits per coefficient (no coefficient can exceed 2^(n*n)), so a row step is integer additions."""
    bits = n * n + 1
    rows = [mask for mask in range(1 << n) if mask & (mask << 1) == 0]
    compatible = {b: [a for a in rows if a & (b | b << 1 | b >> 1) == 0] for b in rows}
    packed = {mask: 1 << (bin(mask).count("1") * bits) for mask in rows}
    for _ in range(n - 1):
        packed = {b: sum(packed[a] for a in compatible[b]) << (bin(b).count("1") * bits) for b in rows}
    return (sum(packed.values()) >> (k * bits)) & ((1 << bits) - 1)


class RoyalLockCounting(CountingEnvironment):
    name = "RoyalLockCounting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        k = rng.randint(1, max(1, n * n // 4))
        return {"N": n, "K": k, "gold": king_placements(n, k)}

    def prompt(self, data):
        n, k = data["N"], data["K"]
        return (
            f"In how many ways can {k} kings be placed on an {n} x {n} chessboard (at most one king per square) so "
            f"that no two kings attack each other? A king attacks the up to 8 squares adjacent to it horizontally, "
            f"vertically or diagonally. Kings are identical, so only the set of occupied squares matters.\n\n"
            "Output Format: a single integer, the number of placements."
        )
