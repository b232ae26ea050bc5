"""Fibtrain: a train whose boardings follow a Fibonacci rule; infer the load after station X."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def loads(first: int, second: int, stations: int) -> list[int]:
    """Passengers on board after leaving stations 1..stations-1 (index 0 is station 1)."""
    boarding = [first, second]
    on_board = [first, first]  # station 2: as many get off as get on
    for _ in range(3, stations):
        boarding.append(boarding[-1] + boarding[-2])
        on_board.append(on_board[-1] + boarding[-1] - boarding[-2])  # those who boarded last time get off
    return on_board


class Fibtrain(ExactIntegerEnvironment):
    name = "Fibtrain"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(5, difficulty), "MAX_A_B": 20}]

    def sample(self, params, rng):
        n = rng.randint(5, params["MAX_N"])
        first, second = rng.randint(1, params["MAX_A_B"]), rng.randint(1, params["MAX_A_B"])
        x = rng.randint(3, n - 1)
        on_board = loads(first, second, n)
        return {"N": n, "A": first, "M": on_board[-1], "X": x, "reference": str(on_board[x - 1])}

    def prompt(self, data):
        return (
            f"A train leaves its first station with {data['A']} passengers, who all board there. At the second "
            "station some passengers get on and the same number get off, so the number on board is unchanged. "
            "From the third station on, the number of passengers getting on equals the sum of the numbers who got "
            "on at the previous two stations, and the number getting off equals the number who got on at the "
            f"previous station. There are {data['N']} stations in total, and at the last one all "
            f"{data['M']} remaining passengers get off.\n"
            f"How many passengers are on the train when it leaves station {data['X']}?\n\n"
            "Output Format: a single integer."
        )
