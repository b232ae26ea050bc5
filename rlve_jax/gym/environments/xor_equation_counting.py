"""XorEquationCounting: tuples X_1..X_N with L <= X_i <= R whose XOR is K, modulo 10000."""

from math import comb

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1

MOD = 10000
RANGES = (3, 7, 31, 127, 1023, 4095, 32767, 131071, 1048575)


def tuples_below(bounds: list[int], k: int) -> int:
    """Tuples with 0 <= x_i <= bounds[i] and XOR k.

    Walk the bits from the top while every x_i equals its bound's prefix. At the first bit where some x_i
    drops below its bound, that x_i's lower bits are free, so exactly 1 / 2^bit of the lower-bit
    combinations reach the wanted XOR.
    """
    total = 0
    for bit in range(max(max(bounds), k).bit_length() - 1, -1, -1):
        low = (1 << bit) - 1
        weights = {(0, False): 1}  # (parity of this bit, someone dropped) -> lower-bit combinations
        for bound in bounds:
            options = [((bound >> bit) & 1, (bound & low) + 1, False)]
            if bound >> bit & 1:
                options.append((0, 1 << bit, True))
            nxt: dict[tuple[int, bool], int] = {}
            for (parity, dropped), weight in weights.items():
                for value, count, drops in options:
                    key = (parity ^ value, dropped or drops)
                    nxt[key] = nxt.get(key, 0) + weight * count
            weights = nxt
        wanted = k >> bit & 1
        total += weights.get((wanted, True), 0) >> bit
        if (wanted, False) not in weights:
            return total
    return total + 1  # every x_i equals its bound and their XOR is k


def tuples_in_range(n: int, low: int, high: int, k: int) -> int:
    """Inclusion-exclusion over which coordinates are capped at low - 1 instead of high."""
    if low == 0:
        return tuples_below([high] * n, k)
    return sum((-1) ** capped * comb(n, capped) * tuples_below([low - 1] * capped + [high] * (n - capped), k)
               for capped in range(n + 1))


class XorEquationCounting(ModCountingEnvironment):
    name = "XorEquationCounting"

    def levels(self, difficulty):
        n = grow_1p1(2, difficulty)
        return [{"N": n, "RANGE": r} for r in RANGES]

    def sample(self, params, rng):
        n = params["N"]
        high = rng.randint(0, params["RANGE"])
        low = rng.randint(0, high)
        k = 0
        for _ in range(n):
            k ^= rng.randint(low, high)
        return {"N": n, "L": low, "R": high, "K": k, "mod": MOD, "gold": tuples_in_range(n, low, high, k) % MOD}

    def prompt(self, data):
        n = data["N"]
        return (
            f"How many tuples (X_1, X_2, ..., X_{n}) of integers satisfy {data['L']} <= X_i <= {data['R']} for every i "
            f"and X_1 XOR X_2 XOR ... XOR X_{n} = {data['K']} (XOR is the bitwise exclusive or)?\n\n"
            f"Output Format: a single integer, the number of tuples modulo {MOD}."
        )
