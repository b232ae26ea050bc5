"""HungryRabbit: a sequence of K-subsets avoiding each step's forbidden numbers, changing at most L per step."""

from rlve_jax.gym.environments._common import INVALID, drop_last_tokens, fraction_reward, parse_ints, parse_lines
from rlve_jax.gym.env import Environment


UNSUCCESSFUL = -0.2  # well-formed, but some step uses a forbidden number


class HungryRabbit(Environment):
    name = "HungryRabbit"

    def levels(self, difficulty):
        return [{"MAX_N_M": 4 + difficulty}]

    def sample(self, params, rng):
        n, m = rng.randint(4, params["MAX_N_M"]), rng.randint(3, params["MAX_N_M"])
        k = rng.randint(2, n - 2)
        limit = rng.randint(1, k - 1)
        numbers = list(range(1, n + 1))
        plan = [sorted(rng.sample(numbers, k))]
        for _ in range(m - 1):
            kept = rng.sample(plan[-1], k - rng.randint(0, min(limit, n - k)))
            fresh = rng.sample([v for v in numbers if v not in plan[-1]], k - len(kept))
            plan.append(sorted(kept + fresh))
        forbidden = [[v for v in numbers if v not in chosen and rng.random() < 0.5] for chosen in plan]
        return {"N": n, "K": k, "L": limit, "forbidden": forbidden,
                "reference": "\n".join(" ".join(map(str, chosen)) for chosen in plan)}

    def prompt(self, data):
        n, k, limit, forbidden = data["N"], data["K"], data["L"], data["forbidden"]
        steps = "\n".join(f"Step {t}: {' '.join(map(str, banned)) if banned else '(nothing forbidden)'}"
                          for t, banned in enumerate(forbidden, 1))
        return (
            f"A rabbit eats for {len(forbidden)} steps. At each step it chooses a set of exactly {k} different "
            f"numbers from 1 to {n}. At each step some numbers are forbidden:\n{steps}\n\n"
            "Choose the sets so that no set contains a number forbidden at its step, and each set (after the first) "
            f"contains at most {limit} numbers that were not in the previous set.\n\n"
            f"Output Format: {len(forbidden)} lines; line t holds the {k} numbers of step t separated by spaces."
        )

    def score(self, data, answer):
        n, k = data["N"], data["K"]
        sets = [parse_ints(line) for line in parse_lines(answer)]
        if len(sets) != len(data["forbidden"]) or any(
                len(chosen) != k or len(set(chosen)) != k or not all(1 <= v <= n for v in chosen) for chosen in sets):
            return INVALID
        if any(v in banned for chosen, banned in zip(sets, data["forbidden"]) for v in chosen):
            return UNSUCCESSFUL
        good = sum(len(set(now) - set(before)) <= data["L"] for before, now in zip(sets, sets[1:]))
        return fraction_reward(good, len(sets) - 1, beta=10)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
