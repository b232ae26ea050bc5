"""GCDFibonacciProduct: the product of Fib(gcd(i, j)) over an N x M grid, modulo a prime."""

import math

from rlve_jax.gym.environments._common import PRIME_MODULI, grow_1p5, score_mod
from rlve_jax.gym.env import Environment


class GCDFibonacciProduct(Environment):
    name = "GCDFibonacciProduct"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(3, params["MAX_N_M"]), rng.randint(3, params["MAX_N_M"])
        mod = rng.choice(PRIME_MODULI)
        fib = [0, 1]
        while len(fib) <= max(n, m):
            fib.append((fib[-1] + fib[-2]) % mod)
        product = 1
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                product = product * fib[math.gcd(i, j)] % mod
        return {"N": n, "M": m, "MOD": mod, "reference": str(product)}

    def prompt(self, data):
        return (
            "Let Fib(k) be the Fibonacci numbers with Fib(1) = Fib(2) = 1 and Fib(k) = Fib(k-1) + Fib(k-2).\n"
            f"Compute the product of Fib(gcd(i, j)) over all 1 <= i <= {data['N']} and 1 <= j <= {data['M']}, "
            f"modulo {data['MOD']}.\n\n"
            f"Output Format: a single integer between 0 and {data['MOD'] - 1}."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["MOD"])
