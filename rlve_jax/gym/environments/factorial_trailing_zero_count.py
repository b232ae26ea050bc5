"""FactorialTrailingZeroCount (held-out): trailing zeros of N! written in base K."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p5


def trailing_zeros(n: int, base: int) -> int:
    """min over p^e || base of floor(v_p(n!) / e), with Legendre's formula for v_p(n!)."""
    best, rest, p = None, base, 2
    while rest > 1:
        if p * p > rest:
            p = rest
        if rest % p == 0:
            exponent = 0
            while rest % p == 0:
                rest //= p
                exponent += 1
            valuation, power = 0, p
            while power <= n:
                valuation += n // power
                power *= p
            best = valuation // exponent if best is None else min(best, valuation // exponent)
        p += 1
    return best


class FactorialTrailingZeroCount(ExactIntegerEnvironment):
    name = "FactorialTrailingZeroCount"

    def levels(self, difficulty):
        return [{"MAX_N_K": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        high = params["MAX_N_K"]
        n, k = rng.randint(3, high), rng.randint(2, high)
        return {"N": n, "K": k, "reference": str(trailing_zeros(n, k))}

    def prompt(self, data):
        return (
            f"Write {data['N']}! (the factorial of {data['N']}) in base {data['K']}. How many trailing zeros "
            "does this representation have?\n\n"
            "Output Format: a single integer."
        )
