"""DeltaMinPopcount: min over n >= 0 of popcount(n XOR (n + d)) for a given binary d."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def min_popcount(d: int) -> int:
    """Bit i of n XOR (n + d) is d_i XOR carry_i, so a DP over bits with the carry as state
    (choosing n's bits) gives the minimum; a final carry costs one more bit."""
    inf = float("inf")
    best = {0: 0, 1: inf}  # carry into the current bit -> fewest differing bits so far
    for i in range(d.bit_length()):
        bit = d >> i & 1
        nxt = {0: inf, 1: inf}
        for carry, cost in best.items():
            for n_bit in (0, 1):
                out = (n_bit + bit + carry) >= 2
                nxt[out] = min(nxt[out], cost + (bit ^ carry))
        best = nxt
    return int(min(best[0], best[1] + 1))


class DeltaMinPopcount(ExactIntegerEnvironment):
    name = "DeltaMinPopcount"

    def levels(self, difficulty):
        return [{"digit_num": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        bits = params["digit_num"]
        d = (1 << (bits - 1)) | rng.getrandbits(bits - 1)
        return {"d": format(d, "b"), "reference": str(min_popcount(d))}

    def prompt(self, data):
        return (
            f"Let d = {data['d']} (written in binary). Over all integers n >= 0, find the minimum possible number "
            "of 1 bits in the binary representation of n XOR (n + d), where XOR is bitwise exclusive or.\n\n"
            "Output Format: a single integer (in decimal)."
        )
