"""ProtectingFlowers: order jobs (time T, damage rate D) so that the total damage, sum of D x (time spent
before the job starts), is minimal (USACO "Protecting the Flowers")."""

from functools import cmp_to_key

from rlve_jax.gym.environments._common import INVALID, grow_1p1, is_permutation, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def damage(order: list[int], times: list[int], rates: list[int]) -> int:
    total = elapsed = 0
    for job in order:
        total += rates[job] * elapsed
        elapsed += times[job]
    return total


def smith_order(times: list[int], rates: list[int]) -> list[int]:
    """Exchange argument: i goes before j when T_i D_j < T_j D_i (ratio T/D ascending)."""
    return sorted(range(len(times)), key=cmp_to_key(lambda i, j: times[i] * rates[j] - times[j] * rates[i]))


class ProtectingFlowers(Environment):
    name = "ProtectingFlowers"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        times = [rng.randint(1, n) for _ in range(n)]
        rates = [rng.randint(1, n) for _ in range(n)]
        order = smith_order(times, rates)
        return {"T": times, "D": rates, "optimum": damage(order, times, rates),
                "reference": " ".join(str(job + 1) for job in order)}

    def prompt(self, data):
        n = len(data["T"])
        jobs = "\n".join(f"Job {i + 1}: T={t}, D={d}" for i, (t, d) in enumerate(zip(data["T"], data["D"])))
        return (
            f"There are {n} jobs, numbered 1 to {n}, to be done one after another; job i takes T[i] time units. "
            f"While job i has not started yet, it causes D[i] units of damage per time unit:\n{jobs}\n\n"
            "So each job causes D times the total time of the jobs done before it. Choose the order of the jobs "
            "that minimizes the total damage.\n\n"
            f"Output Format: a single line with a permutation of 1..{n} (the order of the jobs), separated by spaces."
        )

    def score(self, data, answer):
        order = [job - 1 for job in parse_ints(answer)]
        if not is_permutation(order, len(data["T"])):
            return INVALID
        return minimization_reward(data["optimum"], damage(order, data["T"], data["D"]), beta=5)
