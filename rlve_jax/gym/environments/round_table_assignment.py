"""RoundTableAssignment: seat every group at distinct tables without exceeding any table's capacity."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_ints, parse_lines


class RoundTableAssignment(Environment):
    name = "RoundTableAssignment"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        tables, groups = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        plan = [sorted(rng.sample(range(tables), rng.randint(2, tables))) for _ in range(groups)]
        capacity = [sum(t in seats for seats in plan) for t in range(tables)]
        return {"sizes": [len(seats) for seats in plan], "capacity": capacity,
                "reference": "\n".join(" ".join(map(str, seats)) for seats in plan)}

    def prompt(self, data):
        sizes, capacity = data["sizes"], data["capacity"]
        return (
            f"There are {len(sizes)} groups of people and {len(capacity)} round tables numbered 0 to "
            f"{len(capacity) - 1}. Group i has R[i] people and table j seats at most C[j] people:\n"
            f"R = {' '.join(map(str, sizes))}\nC = {' '.join(map(str, capacity))}\n\n"
            "Seat everybody so that no two people of the same group sit at the same table and no table holds more "
            "people than its capacity.\n\n"
            f"Output Format: {len(sizes)} lines; line i lists the R[i] tables of the people of group i, separated by "
            "spaces."
        )

    def score(self, data, answer):
        sizes, capacity = data["sizes"], data["capacity"]
        seating = [parse_ints(line) for line in parse_lines(answer)]
        if len(seating) != len(sizes) or any(
                len(seats) != size or len(set(seats)) != size or not all(0 <= t < len(capacity) for t in seats)
                for seats, size in zip(seating, sizes)):
            return INVALID
        load = [0] * len(capacity)
        for seats in seating:
            for t in seats:
                load[t] += 1
        return fraction_reward(sum(used <= cap for used, cap in zip(load, capacity)), len(capacity), beta=5)
