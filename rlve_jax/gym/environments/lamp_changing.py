"""LampChanging (C16): lamps on a circle, each step XOR-ed with the clockwise neighbour."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5

STATES = ("OFF", "ON")


def lamp_after(lamps: list[int], k: int, t: int) -> int:
    """State of lamp k after t steps of s[i] <- s[i] xor s[i+1 (mod N)].

    The map is linear over GF(2): s_t[k] = xor of s_0[k + j] over j with C(t, j) odd, i.e. j a
    submask of t (Lucas), so the cost is 2^popcount(t), not N * t.
    """
    n, value, j = len(lamps), 0, t
    while True:
        value ^= lamps[(k + j) % n]
        if j == 0:
            return value
        j = (j - 1) & t


class LampChanging(Environment):
    name = "LampChanging"

    def levels(self, difficulty):
        return [{"MAX_N_T": grow_1p5(8, difficulty)}]

    def sample(self, params, rng):
        target = rng.randint(0, 1)  # the answer is chosen 50/50, then an instance is drawn to match
        while True:
            n, t = rng.randint(3, params["MAX_N_T"]), rng.randint(2, params["MAX_N_T"])
            lamps = [rng.randint(0, 1) for _ in range(n)]
            k = rng.randrange(n)
            if lamp_after(lamps, k, t) == target:
                return {"lamps": lamps, "K": k + 1, "T": t, "reference": STATES[target]}

    def prompt(self, data):
        n = len(data["lamps"])
        states = " ".join(STATES[s] for s in data["lamps"])
        return (
            f"There are {n} lamps arranged in a circle, numbered 1 to {n} clockwise; the clockwise "
            f"neighbour of lamp i is lamp i+1, and that of lamp {n} is lamp 1. At time 0 their states "
            f"are (lamp 1 to lamp {n}): {states}.\n"
            "At every time step all lamps change simultaneously: if the clockwise neighbour of a lamp "
            "is ON, the lamp toggles its state; otherwise it keeps its state.\n"
            f"What is the state of lamp {data['K']} at time {data['T']}?\n\n"
            "Output Format: a single word, either `ON` or `OFF`."
        )

    def score(self, data, answer):
        if answer not in STATES:
            return -0.5
        return float(answer == data["reference"])

    def perturb(self, problem, answer):
        return STATES[answer == "OFF"]
