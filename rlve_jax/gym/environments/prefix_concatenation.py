"""PrefixConcatenation (held-out): the decimal concatenation 123...N modulo M."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def concatenation_mod(n: int, mod: int) -> int:
    """For each digit length, (value, i, 1) -> (value * 10^k + i, i + 1, 1) as a 3x3 matrix power."""

    def multiply(a, b):
        return [[sum(a[i][t] * b[t][j] for t in range(3)) % mod for j in range(3)] for i in range(3)]

    value, digits, low = 0, 1, 1
    while low <= n:
        high = min(n, 10 ** digits - 1)
        step = [[10 ** digits % mod, 1, 0], [0, 1, 1], [0, 0, 1]]
        power, count = [[int(i == j) for j in range(3)] for i in range(3)], high - low + 1
        while count:
            if count & 1:
                power = multiply(power, step)
            step = multiply(step, step)
            count >>= 1
        value = (power[0][0] * value + power[0][1] * low + power[0][2]) % mod
        digits, low = digits + 1, high + 1
    return value


class PrefixConcatenation(ExactIntegerEnvironment):
    name = "PrefixConcatenation"

    def levels(self, difficulty):
        return [{"MAX_N": 64 * 2 ** difficulty}]

    def sample(self, params, rng):
        n, mod = rng.randint(2, params["MAX_N"]), rng.randint(3, 1_000_000)
        return {"N": n, "M": mod, "reference": str(concatenation_mod(n, mod))}

    def prompt(self, data):
        n = data["N"]
        return (
            f"Write the integers 1, 2, 3, ..., {n} one after another in decimal to form one large number "
            f"(for example, for 12 this gives 123456789101112). What is this number modulo {data['M']}?\n\n"
            "Output Format: a single integer."
        )
