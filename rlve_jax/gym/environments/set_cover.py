"""SetCover: choose some of the given sets so that every item is covered exactly once (exact cover)."""

from rlve_jax.gym.environments._common import DropLastTokenPerturbation, fraction_reward, parse_distinct_indices


class SetCover(DropLastTokenPerturbation):
    name = "SetCover"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        m = rng.randint(3, 2 * n)
        groups: list[list[int]] = [[] for _ in range(rng.randint(1, min(m, n)))]
        for item in range(n):
            groups[rng.randrange(len(groups))].append(item)
        sets = [group for group in groups if group]
        planted_count = len(sets)
        while len(sets) < m:
            extra = [item for item in range(n) if rng.random() < 0.5]
            if extra:
                sets.append(extra)
        order = list(range(m))
        rng.shuffle(order)
        planted = sorted(position for position, original in enumerate(order) if original < planted_count)
        return {"N": n, "sets": [sets[i] for i in order], "reference": " ".join(map(str, planted))}

    def prompt(self, data):
        n, sets = data["N"], data["sets"]
        listing = "\n".join(f"set {i}: {' '.join(map(str, s))}" for i, s in enumerate(sets))
        return (
            f"The items are 0 to {n - 1}. You are given {len(sets)} sets of items:\n{listing}\n"
            f"Select some of these sets so that every item belongs to exactly one selected set.\n\n"
            "Output Format: a single line with the indices of the selected sets separated by spaces."
        )

    def score(self, data, answer):
        sets = data["sets"]
        chosen = parse_distinct_indices(answer, len(sets))
        if chosen is None:
            return -0.5
        covered = [item for i in chosen for item in sets[i]]
        if len(covered) != len(set(covered)):
            return -0.5
        return fraction_reward(len(covered), data["N"], beta=10)
