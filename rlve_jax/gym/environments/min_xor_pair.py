"""MinXorPair: choose i < j minimising (A_i AND A_j) XOR (A_i OR A_j), which equals A_i XOR A_j."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_pair
from rlve_jax.gym.env import Environment


class MinXorPair(Environment):
    name = "MinXorPair"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        bits = (2 * n).bit_length()  # the smallest b with 2^b > 2N
        values = rng.sample(range(2 ** bits), n)
        best = min((values[i] ^ values[j], i, j) for i in range(n) for j in range(i + 1, n))
        return {"A": values, "best": best[0], "reference": f"{best[1]} {best[2]}"}

    def prompt(self, data):
        return (
            f"You are given an array A of {len(data['A'])} distinct non-negative integers (indexed from 0):\n"
            f"{' '.join(map(str, data['A']))}\n"
            "Choose two indices i < j that minimise (A[i] AND A[j]) XOR (A[i] OR A[j]), where AND, OR and XOR are "
            "bitwise operations.\n\n"
            "Output Format: two integers `i j` separated by a space."
        )

    def score(self, data, answer):
        i, j = parse_pair(answer)
        if not 0 <= i < j < len(data["A"]):
            return INVALID
        a, b = data["A"][i], data["A"][j]
        return fraction_reward(data["best"], (a & b) ^ (a | b), 5)
