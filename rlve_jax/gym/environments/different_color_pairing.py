"""DifferentColorPairing: pair up pearls so that every pair has two different colours."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import fraction_reward, parse_int_rows


class DifferentColorPairing(Environment):
    name = "DifferentColorPairing"

    def levels(self, difficulty):
        return [{"N": 6 + 2 * difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        m = rng.randint(3, n - 1)
        while True:  # M positive counts summing to N; a pairing exists iff no colour exceeds N/2
            cuts = sorted(rng.sample(range(1, n), m - 1))
            counts = [b - a for a, b in zip([0] + cuts, cuts + [n])]
            if max(counts) <= n // 2:
                break
        return {"N": n, "M": m, "counts": counts}

    def prompt(self, data):
        listing = "\n".join(f"colour {c}: {count} pearl{'s' if count > 1 else ''}"
                            for c, count in enumerate(data["counts"], start=1))
        return (
            f"There are {data['N']} pearls in {data['M']} colours, numbered 1 to {data['M']}:\n{listing}\n\n"
            f"Group all pearls into {data['N'] // 2} pairs so that the two pearls of every pair have different "
            "colours, and every pearl is used exactly once.\n\n"
            f"Output Format: {data['N'] // 2} lines, one per pair, each with the two colour numbers of the "
            "pair separated by a space, e.g. `1 3`."
        )

    def score(self, data, answer):
        pairs = parse_int_rows(answer)
        if len(pairs) != data["N"] // 2 or any(len(pair) != 2 for pair in pairs):
            raise FormatError("wrong number of pairs")
        m = data["M"]
        if any(not (1 <= a <= m and 1 <= b <= m) or a == b for a, b in pairs):
            return -0.5
        used = [0] * (m + 1)
        for a, b in pairs:
            used[a] += 1
            used[b] += 1
        matching = sum(used[c] == data["counts"][c - 1] for c in range(1, m + 1))
        return fraction_reward(matching, m, beta=10)

    def reference(self, problem):
        """Sorted by colour, pearl i pairs with pearl i + N/2; no colour fills more than half."""
        pearls = [c for c, count in enumerate(problem.data["counts"], start=1) for _ in range(count)]
        half = len(pearls) // 2
        return "\n".join(f"{pearls[i]} {pearls[i + half]}" for i in range(half))
