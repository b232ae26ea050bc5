"""SingingGirlStory: arrays over [1, A] whose given subarrays have given maxima."""

from rlve_jax.gym.environments._common import PRIME_MODULI, ModCountingEnvironment
from rlve_jax.gym.environments._numbers import count_under_exact_maxima


class SingingGirlStory(ModCountingEnvironment):
    name = "SingingGirlStory"

    def levels(self, difficulty):
        return [{"MAX_N_M": 3 + difficulty}]

    def sample(self, params, rng):
        top = params["MAX_N_M"]
        n = rng.randint(3, top)
        a = rng.randint(2, n)
        m = rng.randint(1, top)
        planted = [rng.randint(1, a) for _ in range(n)]
        constraints = []
        for _ in range(m):
            length = rng.randint(2, n)
            left = rng.randint(1, n - length + 1)
            right = left + length - 1
            constraints.append([left, right, max(planted[left - 1:right])])
        mod = rng.choice(PRIME_MODULI)
        regions = [(list(range(left - 1, right)), value) for left, right, value in constraints]
        return {"N": n, "A": a, "constraints": constraints, "mod": mod,
                "gold": count_under_exact_maxima([1] * n, regions, a) % mod}

    def prompt(self, data):
        n, a = data["N"], data["A"]
        lines = "\n".join(f"- max(h[{left}], ..., h[{right}]) = {value}" for left, right, value in data["constraints"])
        return (
            f"Count the sequences h[1..{n}] of integers in [1, {a}] that satisfy all of the following:\n{lines}\n\n"
            f"Output Format: a single integer, the number of such sequences modulo {data['mod']}."
        )
