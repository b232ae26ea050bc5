"""Canon (held-out): ordered sequences of M distinct non-empty subsets of {1..N} covering every element evenly."""

from rlve_jax.gym.environments._common import grow_1p1, score_mod, set_text
from rlve_jax.gym.env import Environment


def count_even_sequences(n: int, m: int) -> int:
    """Exact count of ordered M-tuples of distinct non-empty subsets whose XOR is empty.

    Choose the first i-1 subsets freely (distinct, non-empty); the last one is forced to be
    their XOR. Remove the cases where it is empty (a valid (i-1)-sequence) or repeats one of
    the others (a valid (i-2)-sequence plus a repeated pair placed at one of i-1 positions).
    """
    subsets = 2 ** n - 1
    valid = [1, 0]  # lengths 0 and 1
    arrangements = 1  # subsets * (subsets-1) * ... with i-1 factors
    for i in range(2, m + 1):
        arrangements *= subsets - (i - 2)
        valid.append(arrangements - valid[i - 1] - valid[i - 2] * (i - 1) * (subsets - (i - 2)))
    return valid[m]


class Canon(Environment):
    name = "Canon"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        high = params["MAX_N_M"]
        n, m = rng.randint(2, high), rng.randint(2, high)
        mod = rng.randint(2, 1_000_000)
        return {"N": n, "M": m, "mod": mod, "reference": str(count_even_sequences(n, m) % mod)}

    def prompt(self, data):
        n, m, mod = data["N"], data["M"], data["mod"]
        return (
            f"Consider the set S = {set_text(1, n)}. Count the ordered sequences of {m} subsets T_1, ..., T_{m} "
            "of S such that:\n"
            "- every T_i is non-empty;\n"
            "- the subsets are pairwise distinct (T_i != T_j for i != j);\n"
            f"- every element of S belongs to an even number (possibly zero) of the {m} subsets.\n"
            "Two sequences are different if they differ at some position (order matters).\n\n"
            f"Give the count modulo {mod}.\n\n"
            f"Output Format: a single integer in [0, {mod - 1}]."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["mod"])
