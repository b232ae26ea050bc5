"""GCDOne_Counting (C16): count pairs (x, y), 1 <= x <= N, 1 <= y <= M, with gcd(x, y) = 1."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


def mobius_table(n: int) -> list[int]:
    """Möbius function mu(0..n) by a linear sieve."""
    mu, primes, composite = [0, 1] + [0] * (n - 1), [], [False] * (n + 1)
    for i in range(2, n + 1):
        if not composite[i]:
            primes.append(i)
            mu[i] = -1
        for p in primes:
            if i * p > n:
                break
            composite[i * p] = True
            if i % p == 0:
                break
            mu[i * p] = -mu[i]
    return mu[: n + 1]


def coprime_pairs(n: int, m: int) -> int:
    """sum_d mu(d) * floor(n/d) * floor(m/d)."""
    mu = mobius_table(min(n, m))
    return sum(mu[d] * (n // d) * (m // d) for d in range(1, min(n, m) + 1))


class GCDOne_Counting(Environment):
    name = "GCDOne_Counting"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p5(5, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        return {"N": n, "M": m, "reference": str(coprime_pairs(n, m))}

    def prompt(self, data):
        return (
            f"How many pairs of integers (x, y) satisfy 1 <= x <= {data['N']}, 1 <= y <= {data['M']} "
            "and gcd(x, y) = 1?\n\nOutput Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]), positive=True)
