"""KPartition: split N = M*K numbers into M groups of K with equal sums."""

from collections import Counter

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int_rows


class KPartition(Environment):
    name = "KPartition"
    size_keys = ("M",)

    def levels(self, difficulty):
        return [{"M": 2 + difficulty, "K": k} for k in (2, 3, 4, 5)]

    def sample(self, params, rng):
        m, k = params["M"], params["K"]
        target = rng.randint(k * m, 3 * k * m)
        groups = []
        for _ in range(m):  # random cuts of the target sum into K positive parts
            cuts = sorted(rng.sample(range(1, target), k - 1))
            groups.append([b - a for a, b in zip([0] + cuts, cuts + [target])])
        numbers = [x for group in groups for x in group]
        rng.shuffle(numbers)
        return {"M": m, "K": k, "T": target, "numbers": numbers,
                "reference": "\n".join(" ".join(map(str, g)) for g in groups)}

    def prompt(self, data):
        m, k = data["M"], data["K"]
        return (
            f"You are given {m * k} positive integers: {' '.join(map(str, data['numbers']))}\n"
            f"Divide them into {m} groups of exactly {k} numbers each, using every number exactly once (as many "
            f"times as it appears), so that every group has the same sum, {data['T']}.\n\n"
            f"Output Format: {m} lines, one per group, each with the {k} numbers of the group separated by "
            "spaces."
        )

    def score(self, data, answer):
        groups = parse_int_rows(answer)
        if len(groups) != data["M"] or any(len(g) != data["K"] for g in groups):
            return -0.5
        if Counter(x for g in groups for x in g) != Counter(data["numbers"]):
            return -0.5
        return float(all(sum(g) == data["T"] for g in groups))
