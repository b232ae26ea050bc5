"""SubsetSum: pick distinct indices whose values add up exactly to the target."""

from rlve_jax.gym.environments._common import DropLastTokenPerturbation, grow_1p1, parse_distinct_indices


class SubsetSum(DropLastTokenPerturbation):
    name = "SubsetSum"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        values = [rng.randint(1, n) for _ in range(n)]
        chosen = sorted(rng.sample(range(n), rng.randint(2, n - 1)))
        return {"values": values, "target": sum(values[i] for i in chosen),
                "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        values = data["values"]
        listing = " ".join(f"A[{i}]={v}" for i, v in enumerate(values))
        return (
            f"You are given an array A of {len(values)} positive integers: {listing}\n"
            f"Choose some distinct indices i1, i2, ..., ik such that "
            f"A[i1] + A[i2] + ... + A[ik] = {data['target']}.\n\n"
            "Output Format: a single line with the chosen indices separated by spaces."
        )

    def score(self, data, answer):
        values = data["values"]
        chosen = parse_distinct_indices(answer, len(values))
        if chosen is None:
            return -0.5
        return float(sum(values[i] for i in chosen) == data["target"])
