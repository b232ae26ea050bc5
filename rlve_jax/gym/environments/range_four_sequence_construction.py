"""RangeFourSequenceConstruction: a 0..3 sequence avoiding forbidden neighbours with all-different position groups."""

from rlve_jax.gym.environments._common import INVALID, drop_last_tokens, fraction_reward, parse_ints
from rlve_jax.gym.env import Environment


class RangeFourSequenceConstruction(Environment):
    name = "RangeFourSequenceConstruction"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        while True:
            sequence = [rng.randint(0, 3) for _ in range(n)]
            used = {(a, b) for a, b in zip(sequence, sequence[1:])}
            forbidden = [[a, b] for a in range(4) for b in range(4) if (a, b) not in used and rng.random() < 0.5]
            groups = []
            for _ in range(2 * n):  # candidate groups; those the planted sequence satisfies are kept
                group = sorted(rng.sample(range(n), rng.randint(2, min(4, n))))
                if len({sequence[i] for i in group}) == len(group) and group not in groups:
                    groups.append(group)
            if groups:
                return {"N": n, "forbidden": forbidden, "groups": groups, "reference": " ".join(map(str, sequence))}

    def prompt(self, data):
        n = data["N"]
        forbidden = ", ".join(f"({a}, {b})" for a, b in data["forbidden"]) or "(none)"
        groups = "\n".join(" ".join(map(str, group)) for group in data["groups"])
        return (
            f"Construct a sequence A[0], ..., A[{n - 1}] with every value in {{0, 1, 2, 3}} such that:\n"
            f"1. No two neighbours (A[i], A[i+1]) form one of these forbidden ordered pairs: {forbidden}\n"
            "2. For each of the following groups of positions, the values at those positions are all different "
            f"(satisfy as many groups as possible):\n{groups}\n\n"
            f"Output Format: a single line with {n} integers A[0] ... A[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        sequence = parse_ints(answer)
        if len(sequence) != data["N"] or any(not 0 <= v <= 3 for v in sequence):
            return INVALID
        if any([a, b] in data["forbidden"] for a, b in zip(sequence, sequence[1:])):
            return INVALID
        good = sum(len({sequence[i] for i in group}) == len(group) for group in data["groups"])
        return fraction_reward(good, len(data["groups"]), beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
