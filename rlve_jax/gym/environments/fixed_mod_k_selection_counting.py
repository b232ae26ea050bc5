"""FixedModK_Selection_Counting (held-out): sum of C(nk, ik + r) over i, modulo p."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_mod


def selection_sum(n: int, k: int, r: int, mod: int) -> int:
    """Coefficient of x^r in (1 + x)^(nk) modulo (x^k - 1, p), by repeated squaring."""

    def multiply(a: list[int], b: list[int]) -> list[int]:
        result = [0] * k
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    result[(i + j) % k] = (result[(i + j) % k] + x * y) % mod
        return result

    base = [0] * k
    base[0] += 1
    base[1 % k] += 1
    power, result = n * k, [1 % mod] + [0] * (k - 1)
    while power:
        if power & 1:
            result = multiply(result, base)
        base = multiply(base, base)
        power >>= 1
    return result[r] % mod


class FixedModK_Selection_Counting(Environment):
    name = "FixedModK_Selection_Counting"

    def levels(self, difficulty):
        return [{"MAX_N": 8 * 2 ** difficulty, "MAX_K": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n, k = rng.randint(1, params["MAX_N"]), rng.randint(2, params["MAX_K"])
        r, mod = rng.randint(0, k - 1), rng.randint(2, 1_000_000)
        return {"N": n, "K": k, "r": r, "mod": mod, "reference": str(selection_sum(n, k, r, mod))}

    def prompt(self, data):
        n, k, r, mod = data["N"], data["K"], data["r"], data["mod"]
        return (
            f"Let n = {n}, k = {k}, r = {r}. Compute the sum of the binomial coefficients C(n*k, i*k + r) over all "
            f"integers i >= 0 (terms with i*k + r > n*k are zero), that is, the number of subsets of an "
            f"{n * k}-element set whose size is congruent to {r} modulo {k}. Give the result modulo {mod}.\n\n"
            f"Output Format: a single integer in [0, {mod - 1}]."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["mod"])
