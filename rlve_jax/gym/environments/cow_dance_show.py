"""CowDanceShow (held-out): finishing time of a show with K cows on stage at once."""

import heapq

from rlve_jax.gym.environments._common import ExactIntegerEnvironment


def show_length(durations: list[int], k: int) -> int:
    """Cows enter in order; each time one leaves, the next one starts dancing."""
    stage = list(durations[:k])
    heapq.heapify(stage)
    for d in durations[k:]:
        heapq.heappush(stage, heapq.heappop(stage) + d)
    return max(stage)


class CowDanceShow(ExactIntegerEnvironment):
    name = "CowDanceShow"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        durations = [rng.randint(1, n) for _ in range(n)]
        k = rng.randint(2, n - 1)
        return {"durations": durations, "K": k, "reference": str(show_length(durations, k))}

    def prompt(self, data):
        durations, k = data["durations"], data["K"]
        listing = " ".join(f"d[{i}]={v}" for i, v in enumerate(durations))
        return (
            f"There are {len(durations)} cows, numbered 0 to {len(durations) - 1}, that perform in a dance show in "
            f"this order. Cow i dances for exactly d[i] units of time:\n{listing}\n\n"
            f"At time 0 the first {k} cows step on stage at the same time. At any moment at most {k} cows are on "
            "stage: as soon as a cow finishes, she leaves and the next cow in order (if any) immediately steps on "
            "stage. The show ends when the last cow finishes. At what time does the show end?\n\n"
            "Output Format: a single integer."
        )
