"""SetSplitting (held-out): 2-colour the ground set so that no given subset is monochromatic."""

from rlve_jax.gym.environments._common import INVALID, distinct_in_range, fraction_reward, parse_ints, set_text, sweep
from rlve_jax.gym.env import Environment

RATIOS = sweep(1.0, 3.0)  # m = 1.0, 1.1, ..., 3.0


class SetSplitting(Environment):
    name = "SetSplitting"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty, "m": m} for m in RATIOS]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            side = [rng.randint(0, 1) for _ in range(n)]
            if 0 < sum(side) < n:
                break
        subsets = []
        while len(subsets) < int(params["m"] * n):
            subset = sorted(rng.sample(range(n), rng.randint(2, n)))
            if len({side[x] for x in subset}) == 2:
                subsets.append(subset)
        return {"N": n, "subsets": subsets, "reference": " ".join(str(x) for x in range(n) if side[x])}

    def prompt(self, data):
        n = data["N"]
        subsets = "\n".join("{ " + ", ".join(map(str, s)) + " }" for s in data["subsets"])
        return (
            f"The ground set is {set_text(0, n - 1)}. Split it into two parts S1 and S2 (S2 is everything not in "
            "S1) so that each of the following subsets has at least one element in S1 and at least one element "
            f"in S2:\n{subsets}\n\n"
            "Output Format: a single line with the elements of S1 separated by spaces."
        )

    def score(self, data, answer):
        chosen = parse_ints(answer)
        if not distinct_in_range(chosen, 0, data["N"] - 1):
            return INVALID
        members = set(chosen)
        split = sum(0 < sum(x in members for x in s) < len(s) for s in data["subsets"])
        return fraction_reward(split, len(data["subsets"]), beta=10)

    def perturb(self, problem, answer):
        return answer + " " + answer.split()[0]  # a repeated element
